//! Android binary XML, as far as a manifest's identity needs it: the file is a sequence of
//! chunks (`type: u16, header_size: u16, size: u32`, little-endian); the string pool chunk
//! holds every name and text value (UTF-16 or UTF-8), the resource map gives attribute
//! names their framework ids (names may be stripped by shrinkers: the id still says which
//! attribute it is), and each start-element chunk lists its attributes as string indices or
//! typed values. Elements other than `<manifest>` and `<instrumentation>` are skipped.

use crate::{ApkError, Instrumentation, Manifest};

const RES_XML: u16 = 0x0003;
const STRING_POOL: u16 = 0x0001;
const RESOURCE_MAP: u16 = 0x0180;
const START_ELEMENT: u16 = 0x0102;
const UTF8_FLAG: u32 = 0x100;
const NO_INDEX: u32 = 0xFFFF_FFFF;
/// Typed values: a string index, and the integer kinds.
const TYPE_STRING: u8 = 0x03;
const TYPE_INT_DEC: u8 = 0x10;
const TYPE_INT_HEX: u8 = 0x11;

/// Framework attribute ids (android.R.attr) of the attributes read, for stripped names.
const ATTR_NAME: u32 = 0x0101_0003;
const ATTR_TARGET_PACKAGE: u32 = 0x0101_0021;
const ATTR_VERSION_CODE: u32 = 0x0101_021b;
const ATTR_VERSION_NAME: u32 = 0x0101_021c;

fn u16_at(b: &[u8], at: usize) -> Result<u16, ApkError> {
    b.get(at..at + 2)
        .map(|x| u16::from_le_bytes([x[0], x[1]]))
        .ok_or(ApkError::Malformed("cut short"))
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, ApkError> {
    b.get(at..at + 4)
        .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
        .ok_or(ApkError::Malformed("cut short"))
}

/// The string pool: every string decoded up front (manifests hold a few hundred).
struct Strings(Vec<String>);

impl Strings {
    fn read(b: &[u8], chunk: usize) -> Result<Strings, ApkError> {
        let header = u16_at(b, chunk + 2)? as usize;
        let count = u32_at(b, chunk + 8)? as usize;
        let flags = u32_at(b, chunk + 16)?;
        let start = chunk + u32_at(b, chunk + 20)? as usize;
        if count > b.len() / 4 {
            return Err(ApkError::Malformed("string count past the file's end"));
        }
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let at = start + u32_at(b, chunk + header + 4 * i)? as usize;
            out.push(if flags & UTF8_FLAG != 0 {
                utf8_string(b, at)?
            } else {
                utf16_string(b, at)?
            });
        }
        Ok(Strings(out))
    }

    fn get(&self, index: u32) -> Option<&str> {
        self.0.get(index as usize).map(String::as_str)
    }
}

/// A UTF-16 pool string: its length in units (one u16, or two with the high bit set), then
/// the units.
fn utf16_string(b: &[u8], at: usize) -> Result<String, ApkError> {
    let first = u16_at(b, at)? as usize;
    let (len, at) = if first & 0x8000 != 0 {
        (
            ((first & 0x7FFF) << 16) | u16_at(b, at + 2)? as usize,
            at + 4,
        )
    } else {
        (first, at + 2)
    };
    let units = b
        .get(at..at + 2 * len)
        .ok_or(ApkError::Malformed("string past the file's end"))?
        .chunks_exact(2)
        .map(|u| u16::from_le_bytes([u[0], u[1]]));
    Ok(char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect())
}

/// A UTF-8 pool string: its length in UTF-16 units, then in bytes (each one byte, or two
/// with the high bit set), then the bytes.
fn utf8_string(b: &[u8], at: usize) -> Result<String, ApkError> {
    let varlen = |at: usize| -> Result<(usize, usize), ApkError> {
        let first = *b.get(at).ok_or(ApkError::Malformed("cut short"))? as usize;
        if first & 0x80 != 0 {
            let second = *b.get(at + 1).ok_or(ApkError::Malformed("cut short"))? as usize;
            Ok((((first & 0x7F) << 8) | second, at + 2))
        } else {
            Ok((first, at + 1))
        }
    };
    let (_, at) = varlen(at)?;
    let (bytes, at) = varlen(at)?;
    let raw = b
        .get(at..at + bytes)
        .ok_or(ApkError::Malformed("string past the file's end"))?;
    Ok(String::from_utf8_lossy(raw).into_owned())
}

/// One attribute's value, as far as this reader cares.
#[derive(Debug, PartialEq)]
enum Value<'a> {
    Text(&'a str),
    Int(u32),
    Other,
}

/// One attribute of an element.
struct Attr<'a> {
    /// Its name in the pool (empty when a shrinker stripped it).
    name: &'a str,
    /// Its framework id, from the resource map.
    id: Option<u32>,
    value: Value<'a>,
}

impl Attr<'_> {
    fn is(&self, name: &str, id: u32) -> bool {
        self.name == name || self.id == Some(id)
    }
}

/// The attributes of one start-element chunk.
fn attributes<'a>(
    b: &[u8],
    chunk: usize,
    strings: &'a Strings,
    ids: &[u32],
) -> Result<Vec<Attr<'a>>, ApkError> {
    let ext = chunk + u16_at(b, chunk + 2)? as usize;
    let attr_start = u16_at(b, ext + 8)? as usize;
    let attr_size = u16_at(b, ext + 10)? as usize;
    let count = u16_at(b, ext + 12)? as usize;
    if attr_size < 20 {
        return Err(ApkError::Malformed("attribute records too short"));
    }
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let at = ext + attr_start + i * attr_size;
        let name_index = u32_at(b, at + 4)?;
        let raw = u32_at(b, at + 8)?;
        let kind = *b.get(at + 15).ok_or(ApkError::Malformed("cut short"))?;
        let data = u32_at(b, at + 16)?;
        let value = if raw != NO_INDEX {
            strings.get(raw).map_or(Value::Other, Value::Text)
        } else {
            match kind {
                TYPE_STRING => strings.get(data).map_or(Value::Other, Value::Text),
                TYPE_INT_DEC | TYPE_INT_HEX => Value::Int(data),
                _ => Value::Other,
            }
        };
        out.push(Attr {
            name: strings.get(name_index).unwrap_or(""),
            id: ids.get(name_index as usize).copied(),
            value,
        });
    }
    Ok(out)
}

/// The text of the attribute named `name` (or carrying framework id `id`).
fn text<'a>(attrs: &[Attr<'a>], name: &str, id: u32) -> Option<&'a str> {
    attrs.iter().find_map(|a| match a.value {
        Value::Text(t) if a.is(name, id) => Some(t),
        _ => None,
    })
}

/// Reads the manifest facts from a binary XML document.
pub(crate) fn manifest(b: &[u8]) -> Result<Manifest, ApkError> {
    if u16_at(b, 0)? != RES_XML {
        return Err(ApkError::Malformed("no binary XML header"));
    }
    let end = (u32_at(b, 4)? as usize).min(b.len());
    let mut at = u16_at(b, 2)? as usize;
    let mut strings = Strings(Vec::new());
    let mut ids: Vec<u32> = Vec::new();
    let mut found: Option<Manifest> = None;
    while at + 8 <= end {
        let kind = u16_at(b, at)?;
        let size = u32_at(b, at + 4)? as usize;
        if size < 8 || at + size > end {
            return Err(ApkError::Malformed("a chunk overruns the document"));
        }
        match kind {
            STRING_POOL => strings = Strings::read(b, at)?,
            RESOURCE_MAP => {
                let header = u16_at(b, at + 2)? as usize;
                ids = (at + header..at + size)
                    .step_by(4)
                    .map(|i| u32_at(b, i))
                    .collect::<Result<_, _>>()?;
            }
            START_ELEMENT => {
                let ext = at + u16_at(b, at + 2)? as usize;
                let element = strings.get(u32_at(b, ext + 4)?).unwrap_or("");
                let attrs = attributes(b, at, &strings, &ids)?;
                match (element, found.as_mut()) {
                    ("manifest", None) => {
                        let package = text(&attrs, "package", 0).ok_or(ApkError::NoPackage)?;
                        let version_code = attrs.iter().find_map(|a| match a.value {
                            Value::Int(c) if a.is("versionCode", ATTR_VERSION_CODE) => Some(c),
                            _ => None,
                        });
                        found = Some(Manifest {
                            package: package.to_string(),
                            version_name: text(&attrs, "versionName", ATTR_VERSION_NAME)
                                .map(str::to_string),
                            version_code,
                            instrumentations: Vec::new(),
                        });
                    }
                    ("instrumentation", Some(m)) => {
                        if let (Some(name), Some(target)) = (
                            text(&attrs, "name", ATTR_NAME),
                            text(&attrs, "targetPackage", ATTR_TARGET_PACKAGE),
                        ) {
                            m.instrumentations.push(Instrumentation {
                                name: name.to_string(),
                                target_package: target.to_string(),
                            });
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        at += size;
    }
    found.ok_or(ApkError::NoPackage)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The real binary manifests of Appium's UiAutomator2 server 10.6.6 (npm
    /// `appium-uiautomator2-server`, Apache-2.0), taken out of its two APKs.
    const SERVER: &[u8] = include_bytes!("../tests/data/uia2_server_10.6.6.axml");
    const SERVER_TEST: &[u8] = include_bytes!("../tests/data/uia2_server_test_10.6.6.axml");

    #[test]
    fn the_servers_real_manifest_names_its_package_and_version() {
        let m = manifest(SERVER).unwrap();
        assert_eq!(m.package, "io.appium.uiautomator2.server");
        assert_eq!(m.version_name.as_deref(), Some("10.6.6"));
        assert!(m.version_code.is_some());
        assert!(m.instrumentations.is_empty());
    }

    #[test]
    fn the_test_packages_real_manifest_names_its_runner_and_target() {
        let m = manifest(SERVER_TEST).unwrap();
        assert_eq!(m.package, "io.appium.uiautomator2.server.test");
        assert_eq!(
            m.instrumentations,
            vec![Instrumentation {
                name: "androidx.test.runner.AndroidJUnitRunner".into(),
                target_package: "io.appium.uiautomator2.server".into(),
            }]
        );
        assert_eq!(
            m.instrumentation_component(&m.instrumentations[0]),
            "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner"
        );
    }

    #[test]
    fn every_truncation_of_a_real_manifest_is_an_error_not_a_panic() {
        for len in 0..SERVER_TEST.len() {
            let cut = &SERVER_TEST[..len];
            // Cut inside the last element only loses trailing facts; never panics.
            let _ = manifest(cut);
        }
        assert!(manifest(&SERVER_TEST[..100]).is_err());
    }

    #[test]
    fn a_chunk_claiming_more_than_the_file_is_refused() {
        let mut bytes = SERVER_TEST.to_vec();
        // The string pool's size (at 8 + 4) made larger than the document.
        bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(manifest(&bytes), Err(ApkError::Malformed(_))));
    }

    /// A minimal UTF-8 binary manifest, `<manifest package=… android:versionName=…>` with
    /// `<instrumentation>` children: what the zip-level tests carry.
    pub(crate) fn build_manifest(
        package: &str,
        version: Option<&str>,
        runners: &[(&str, &str)],
    ) -> Vec<u8> {
        let mut pool = vec![
            "manifest",
            "package",
            package,
            "instrumentation",
            "name",
            "targetPackage",
        ];
        pool.extend(version.map(|_| "versionName"));
        pool.extend(version);
        for (name, target) in runners {
            pool.push(name);
            pool.push(target);
        }
        let index = |s: &str| pool.iter().position(|p| *p == s).unwrap() as u32;
        // String pool chunk, UTF-8.
        let mut data = Vec::new();
        let mut offsets = Vec::new();
        for s in &pool {
            offsets.push(data.len() as u32);
            data.push(s.len() as u8);
            data.push(s.len() as u8);
            data.extend(s.as_bytes());
            data.push(0);
        }
        while data.len() % 4 != 0 {
            data.push(0);
        }
        let header = 28u32;
        let start = header + 4 * pool.len() as u32;
        let mut chunk = Vec::new();
        for v in [STRING_POOL, 28] {
            chunk.extend(v.to_le_bytes());
        }
        chunk.extend((start + data.len() as u32).to_le_bytes());
        for v in [pool.len() as u32, 0, UTF8_FLAG, start, 0] {
            chunk.extend(v.to_le_bytes());
        }
        for o in offsets {
            chunk.extend(o.to_le_bytes());
        }
        chunk.extend(data);
        let element = |name: u32, attrs: &[(u32, u32)]| {
            let mut c = Vec::new();
            for v in [START_ELEMENT, 16] {
                c.extend(v.to_le_bytes());
            }
            c.extend((16 + 20 + 20 * attrs.len() as u32).to_le_bytes());
            c.extend([0u8; 8]);
            c.extend(NO_INDEX.to_le_bytes());
            c.extend(name.to_le_bytes());
            for v in [20u16, 20, attrs.len() as u16, 0, 0, 0] {
                c.extend(v.to_le_bytes());
            }
            for (n, v) in attrs {
                c.extend(NO_INDEX.to_le_bytes());
                c.extend(n.to_le_bytes());
                c.extend(v.to_le_bytes());
                c.extend([8u8, 0, 0, TYPE_STRING]);
                c.extend(v.to_le_bytes());
            }
            c
        };
        let mut root = vec![(index("package"), index(package))];
        if let Some(v) = version {
            root.push((index("versionName"), index(v)));
        }
        let mut body = chunk;
        body.extend(element(index("manifest"), &root));
        for (name, target) in runners {
            body.extend(element(
                index("instrumentation"),
                &[
                    (index("name"), index(name)),
                    (index("targetPackage"), index(target)),
                ],
            ));
        }
        let mut doc = Vec::new();
        for v in [RES_XML, 8] {
            doc.extend(v.to_le_bytes());
        }
        doc.extend((8 + body.len() as u32).to_le_bytes());
        doc.extend(body);
        doc
    }

    #[test]
    fn a_utf8_manifest_with_runners_reads_back() {
        let m = manifest(&build_manifest(
            "a.b.test",
            None,
            &[("x.Runner", "a.b"), ("y.Other", "a.c")],
        ))
        .unwrap();
        assert_eq!(m.package, "a.b.test");
        assert_eq!(m.version_name, None);
        assert_eq!(m.instrumentations.len(), 2);
        assert_eq!(m.instrumentations[1].target_package, "a.c");
    }
}
