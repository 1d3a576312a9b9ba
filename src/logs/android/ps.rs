//! `ps` output, whatever its columns: the header names them (`PID`, and `NAME` — or `CMD`,
//! `ARGS` — last), so `ps -A -o PID,NAME` (Android 8+), `ps -A` and the old toolbox `ps`
//! (`USER PID PPID VSIZE RSS WCHAN PC NAME`) all read the same. Kernel threads (`[kworker]`)
//! are left out: they never log.

/// (pid, process name) of each process listed.
pub fn parse(text: &str) -> Vec<(u32, String)> {
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r'));
    let Some(header) = lines.by_ref().find(|l| !l.trim().is_empty()) else {
        return Vec::new();
    };
    let cols: Vec<&str> = header.split_whitespace().collect();
    let Some(pid_col) = cols.iter().position(|c| *c == "PID") else {
        return Vec::new();
    };
    let single_word = match cols.last() {
        Some(&"NAME") => true,
        Some(&("CMD" | "ARGS" | "CMDLINE" | "COMMAND")) => false,
        _ => return Vec::new(),
    };
    let name_col = cols.len() - 1;
    lines
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let pid: u32 = fields.get(pid_col)?.parse().ok()?;
            // A NAME is one word, the last (old toolbox rows have an unlabelled state column
            // before it); a command line may hold spaces: everything from its column on.
            let name = if single_word || fields.len() <= name_col {
                fields.last()?.to_string()
            } else {
                fields[name_col..].join(" ")
            };
            (!name.starts_with('[')).then_some((pid, name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_from_the_header() {
        let p = parse("  PID NAME\n    1 init\n 4301 com.mobilectl.demo\n");
        assert_eq!(p, [(1, "init".into()), (4301, "com.mobilectl.demo".into())]);
        let old = "USER     PID   PPID  VSIZE  RSS     WCHAN    PC         NAME\r\nroot      1     0     640    496   c00bd520 00019fb8 S /init\r\nu0_a34    1200  103   500000 30000 ffffffff 00000000 S com.example.app:remote\r\nroot      2     0     0      0     c00335a0 00000000 S [kthreadd]\r\n";
        assert_eq!(
            parse(old),
            [(1, "/init".into()), (1200, "com.example.app:remote".into())]
        );
        assert!(parse("bad pid '-A'\n").is_empty());
        assert!(parse("").is_empty());
    }
}
