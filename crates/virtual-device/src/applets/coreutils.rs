//! `stat` and `date` as Android's toybox prints them. They are stand-ins rather than
//! passed through to the host's programs because the host's differ: BSD `stat` (macOS) has no
//! `-c`, and BSD `date` has no `%N`, both of which callers of a real device rely on.

use chrono::format::{Item, StrftimeItems};
use chrono::{DateTime, Utc};

use super::AppletResult;
use crate::Device;

/// `stat [-L] [-c FORMAT] FILE…`: one line per file, in toybox's `-c` format (`%F`, `%s`,
/// `%n`, `%a`, `%A`, `%h`, `%i`, `%u`, `%g`, `%X`, `%Y`, `%Z`, `%%`); without `-c`, the size,
/// type and name.
pub fn stat(dev: &Device, args: &[String]) -> AppletResult {
    let mut format = None;
    let mut follow = false;
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-c" | "--format" => match it.next() {
                Some(f) => format = Some(f.clone()),
                None => return AppletResult::fail(1, "stat: Needs 1 argument\n"),
            },
            "-L" | "--dereference" => follow = true,
            s if s.starts_with("-c") => format = Some(s[2..].to_string()),
            s if s.starts_with('-') && s.len() > 1 => {
                return AppletResult::fail(1, format!("stat: Unknown option '{s}'\n"))
            }
            _ => files.push(a.clone()),
        }
    }
    if files.is_empty() {
        return AppletResult::fail(1, "stat: Needs 1 argument\n");
    }
    let format = format.unwrap_or_else(|| "  File: %n\n  Size: %s\t%F".to_string());
    let mut out = String::new();
    let mut err = String::new();
    for name in &files {
        let meta = dev.sandbox.host_path(name).and_then(|host| {
            if follow {
                std::fs::metadata(host).ok()
            } else {
                std::fs::symlink_metadata(host).ok()
            }
        });
        match meta {
            Some(m) => {
                out += &stat_line(&format, name, &FileFacts::of(&m));
                out.push('\n');
            }
            None => err += &format!("stat: '{name}': No such file or directory\n"),
        }
    }
    AppletResult::Output {
        code: i32::from(!err.is_empty()),
        stdout: out.into_bytes(),
        stderr: err.into_bytes(),
    }
}

/// What `stat` prints of one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileFacts {
    pub kind: &'static str,
    pub size: u64,
    pub mode: u32,
    pub links: u64,
    pub inode: u64,
    pub uid: u32,
    pub gid: u32,
    pub atime: i64,
    pub mtime: i64,
    pub ctime: i64,
}

impl FileFacts {
    fn of(m: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileFacts {
            kind: kind_name(m.mode(), m.size()),
            size: m.size(),
            mode: m.mode(),
            links: m.nlink(),
            inode: m.ino(),
            uid: m.uid(),
            gid: m.gid(),
            atime: m.atime(),
            mtime: m.mtime(),
            ctime: m.ctime(),
        }
    }
}

/// toybox's name of a file type (`%F`); an empty regular file is "regular empty file".
pub fn kind_name(mode: u32, size: u64) -> &'static str {
    match mode & 0o170000 {
        0o100000 if size == 0 => "regular empty file",
        0o100000 => "regular file",
        0o040000 => "directory",
        0o120000 => "symbolic link",
        0o020000 => "character device",
        0o060000 => "block device",
        0o140000 => "socket",
        0o010000 => "FIFO (named pipe)",
        _ => "unknown",
    }
}

/// `ls -l`'s permission string of a mode (`%A`), such as `-rw-r--r--`.
fn permission_string(mode: u32, kind: &str) -> String {
    let first = match kind {
        "directory" => 'd',
        "symbolic link" => 'l',
        "character device" => 'c',
        "block device" => 'b',
        "socket" => 's',
        "FIFO (named pipe)" => 'p',
        _ => '-',
    };
    let bits = "rwxrwxrwx";
    std::iter::once(first)
        .chain(
            bits.chars()
                .enumerate()
                .map(|(i, c)| if mode & (0o400 >> i) != 0 { c } else { '-' }),
        )
        .collect()
}

/// One file's line of `stat -c FORMAT`; unknown `%` sequences are printed as they are.
pub fn stat_line(format: &str, name: &str, f: &FileFacts) -> String {
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('F') => out += f.kind,
            Some('s') => out += &f.size.to_string(),
            Some('n') => out += name,
            Some('a') => out += &format!("{:o}", f.mode & 0o7777),
            Some('A') => out += &permission_string(f.mode, f.kind),
            Some('h') => out += &f.links.to_string(),
            Some('i') => out += &f.inode.to_string(),
            Some('u') => out += &f.uid.to_string(),
            Some('g') => out += &f.gid.to_string(),
            Some('X') => out += &f.atime.to_string(),
            Some('Y') => out += &f.mtime.to_string(),
            Some('Z') => out += &f.ctime.to_string(),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// The format `date` prints without one: `Fri Nov 27 06:37:00 UTC 2026`.
const DEFAULT_DATE: &str = "%a %b %e %H:%M:%S %Z %Y";

/// `date [-u] [+FORMAT]`: the device's clock (UTC) in strftime's format, `%N` (nanoseconds)
/// included. Setting the clock is refused, as on a device without root.
pub fn date(args: &[String]) -> AppletResult {
    let mut format = DEFAULT_DATE.to_string();
    for a in args {
        match a.as_str() {
            "-u" | "--utc" => {}
            s if s.starts_with('+') => format = s[1..].to_string(),
            "-s" | "--set" => {
                return AppletResult::fail(1, "date: cannot set date: Operation not permitted\n")
            }
            s => return AppletResult::fail(1, format!("date: bad date '{s}'\n")),
        }
    }
    match format_date(&format, Utc::now()) {
        Some(text) => AppletResult::ok(format!("{text}\n")),
        None => AppletResult::fail(1, format!("date: bad format '{format}'\n")),
    }
}

/// `when` in strftime's `format`, with `%N` as nine digits of nanoseconds; `None` for a format
/// chrono cannot print.
pub fn format_date(format: &str, when: DateTime<Utc>) -> Option<String> {
    let nanos = format!("{:09}", when.timestamp_subsec_nanos());
    let mut text = String::new();
    // `%%N` is a literal `%N`: split on `%%` first, then swap `%N` in each piece.
    for (i, piece) in format.split("%%").enumerate() {
        if i > 0 {
            text.push_str("%%");
        }
        text.push_str(&piece.replace("%N", &nanos));
    }
    let items: Vec<Item> = StrftimeItems::new(&text).collect();
    if items.iter().any(|i| matches!(i, Item::Error)) {
        return None;
    }
    Some(when.format_with_items(items.into_iter()).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn file(kind: &'static str, mode: u32, size: u64) -> FileFacts {
        FileFacts {
            kind,
            size,
            mode,
            links: 1,
            inode: 42,
            uid: 2000,
            gid: 1015,
            atime: 1,
            mtime: 2,
            ctime: 3,
        }
    }

    #[test]
    fn kinds_are_named_as_toybox_names_them() {
        assert_eq!(kind_name(0o100644, 3), "regular file");
        assert_eq!(kind_name(0o100644, 0), "regular empty file");
        assert_eq!(kind_name(0o040755, 4096), "directory");
        assert_eq!(kind_name(0o120777, 7), "symbolic link");
        assert_eq!(kind_name(0o010644, 0), "FIFO (named pipe)");
    }

    #[test]
    fn the_format_callers_use_prints_kind_and_size() {
        let f = file("regular file", 0o100644, 1234);
        assert_eq!(stat_line("%F|%s", "/sdcard/a", &f), "regular file|1234");
        assert_eq!(
            stat_line("%n %a %A %h %i %u %g %X %Y %Z %% %q", "/sdcard/a", &f),
            "/sdcard/a 644 -rw-r--r-- 1 42 2000 1015 1 2 3 % %q"
        );
        let d = file("directory", 0o040750, 4096);
        assert_eq!(stat_line("%A|%a", "/d", &d), "drwxr-x---|750");
    }

    #[test]
    fn dates_print_nanoseconds_and_reject_what_chrono_cannot_print() {
        let when = Utc.timestamp_opt(1_795_760_220, 5_000_000).unwrap();
        assert_eq!(
            format_date("%Y %z %s.%N", when).unwrap(),
            "2026 +0000 1795760220.005000000"
        );
        assert_eq!(format_date("%%N", when).unwrap(), "%N");
        assert_eq!(
            format_date(DEFAULT_DATE, when).unwrap(),
            "Fri Nov 27 06:17:00 UTC 2026"
        );
        assert_eq!(format_date("%Q", when), None);
    }
}
