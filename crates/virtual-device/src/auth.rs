//! adb's RSA authentication, as a device asks for it: after the host's CNXN the device sends
//! `AUTH(TOKEN, 20 random bytes)`; the host answers `AUTH(SIGNATURE, …)`, the token signed with
//! one of its private keys (PKCS#1 v1.5, the token taken as a SHA-1 digest), and the device
//! answers CNXN only when an authorised public key verifies it. Otherwise it sends a fresh
//! token, and the host tries its next key; once it has none left it sends
//! `AUTH(RSAPUBLICKEY, "<base64 key> user@host\0")`, on which a real device asks its user —
//! this one refuses: it never answers CNXN, so adb lists it as `unauthorized`.
//!
//! Which keys are authorised ([`AuthorizedKeys`]) is read again at every signature, so a key
//! the adb server makes on its first start counts. Public keys are in adb's own format
//! (`adbkey.pub`: base64 of the mincrypt `RSAPublicKey` struct — modulus size in 32-bit words,
//! n0inv, modulus little-endian, R², exponent — then ` user@host`); a private key file (PEM,
//! PKCS#8 as adb writes it, or PKCS#1) stands for its public half.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use base64::Engine;
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::DecodePrivateKey;
use rsa::{BigUint, Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
use sha1::Sha1;

/// `AUTH` arg0: the device's challenge.
pub const AUTH_TOKEN: u32 = 1;
/// `AUTH` arg0: the host's signature of the challenge.
pub const AUTH_SIGNATURE: u32 = 2;
/// `AUTH` arg0: the host's public key, offered once no key of it was accepted.
pub const AUTH_RSAPUBLICKEY: u32 = 3;
/// Bytes of a challenge.
pub const TOKEN_SIZE: usize = 20;
/// Signatures one connection may fail before the device hangs up (adb tries each of its keys
/// once per token; a user has a handful).
pub const MAX_FAILED_SIGNATURES: u32 = 64;

/// The adb keys whose signatures the device accepts.
#[derive(Debug, Clone, Default)]
pub enum AuthorizedKeys {
    /// The keys the adb server of the user who started the device signs with, found as the
    /// adb client finds them: `$HOME/.android/adbkey` (the home from the user database when
    /// `HOME` is unset) and every entry of `ADB_VENDOR_KEYS` (`:`-separated files, or folders
    /// whose `*.adb_key` files count) — each by its `.pub` beside it, else its private half.
    /// adb reads neither `ANDROID_USER_HOME` nor `ANDROID_SDK_HOME` for its keys.
    #[default]
    User,
    /// These files: public keys in adb's format, or private keys (their public half).
    Files(Vec<PathBuf>),
}

impl AuthorizedKeys {
    /// The public keys authorised now; files that are missing or unreadable count for none.
    pub fn load(&self) -> Vec<RsaPublicKey> {
        match self {
            AuthorizedKeys::Files(files) => files.iter().filter_map(|f| key_file(f)).collect(),
            AuthorizedKeys::User => {
                let vendor = std::env::var_os("ADB_VENDOR_KEYS").unwrap_or_default();
                public_halves(&adb_key_paths(user_home().as_deref(), &vendor))
            }
        }
    }
}

/// The public keys of private key files: each `.pub` beside it, else its own public half.
fn public_halves(private_keys: &[PathBuf]) -> Vec<RsaPublicKey> {
    private_keys
        .iter()
        .filter_map(|p| key_file(&with_suffix(p, ".pub")).or_else(|| key_file(p)))
        .collect()
}

/// The private key files an adb client signs with, in its order, given its home and
/// `ADB_VENDOR_KEYS`.
fn adb_key_paths(home: Option<&Path>, vendor_keys: &std::ffi::OsStr) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(home) = home {
        paths.push(home.join(".android").join("adbkey"));
    }
    for entry in std::env::split_paths(vendor_keys).filter(|p| !p.as_os_str().is_empty()) {
        if entry.is_dir() {
            let Ok(dir) = std::fs::read_dir(&entry) else {
                continue;
            };
            let mut keys: Vec<PathBuf> = dir
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(".adb_key"))
                .collect();
            keys.sort();
            paths.extend(keys);
        } else {
            paths.push(entry);
        }
    }
    paths
}

/// `$HOME`, else the home of the process's user in the user database (as adb finds it).
fn user_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("HOME") {
        return Some(PathBuf::from(home));
    }
    let mut pwd: libc::passwd = zeroed_passwd();
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwuid_r writes only into `pwd` and `buf` (whose length it is given) and sets
    // `result` to `&pwd` or null.
    let rc = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut result,
        )
    };
    if rc != 0 || result.is_null() || pwd.pw_dir.is_null() {
        return None;
    }
    // SAFETY: on success `pw_dir` points at a NUL-terminated string inside `buf`, still alive.
    let dir = unsafe { std::ffi::CStr::from_ptr(pwd.pw_dir) };
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes())))
}

fn zeroed_passwd() -> libc::passwd {
    // SAFETY: `passwd` is a C struct of integers and pointers, for which all zeros is valid.
    unsafe { std::mem::zeroed() }
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// The public key a key file holds or stands for.
fn key_file(path: &Path) -> Option<RsaPublicKey> {
    let text = std::fs::read_to_string(path).ok()?;
    if text.contains("-----BEGIN") {
        let private = RsaPrivateKey::from_pkcs8_pem(&text)
            .or_else(|_| RsaPrivateKey::from_pkcs1_pem(&text))
            .ok()?;
        return Some(private.to_public_key());
    }
    parse_public_key(&text)
}

/// A public key in adb's format: base64 of the mincrypt `RSAPublicKey` struct, then
/// optionally ` user@host` (and a NUL, as sent in `AUTH(RSAPUBLICKEY)`).
pub fn parse_public_key(text: &str) -> Option<RsaPublicKey> {
    let encoded = text.trim_matches(char::from(0)).split_whitespace().next()?;
    let raw = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(raw.get(at..at + 4)?.try_into().ok()?))
    };
    let words = word(0)? as usize;
    // 2048-bit keys are 64 words; refuse sizes no adb key has.
    if !(16..=256).contains(&words) || raw.len() != 4 + 4 + 8 * words + 4 {
        return None;
    }
    let modulus = BigUint::from_bytes_le(&raw[8..8 + 4 * words]);
    let exponent = BigUint::from(word(8 + 8 * words)?);
    RsaPublicKey::new(modulus, exponent).ok()
}

/// A fresh challenge.
pub fn new_token() -> [u8; TOKEN_SIZE] {
    let mut token = [0u8; TOKEN_SIZE];
    if getrandom::getrandom(&mut token).is_err() {
        // No system randomness: a token no signature can be made for in advance still comes
        // from the clock and the process, and the key check itself is unchanged.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        for (i, b) in t
            .to_le_bytes()
            .iter()
            .chain(&std::process::id().to_le_bytes())
            .enumerate()
        {
            token[i % TOKEN_SIZE] ^= b;
        }
    }
    token
}

/// Whether `signature` is `token` signed by one of `keys` (as adb signs: PKCS#1 v1.5 with the
/// SHA-1 DigestInfo, the token standing for the digest).
pub fn verify(keys: &[RsaPublicKey], token: &[u8], signature: &[u8]) -> bool {
    token.len() == TOKEN_SIZE
        && keys.iter().any(|k| {
            k.verify(Pkcs1v15Sign::new::<Sha1>(), token, signature)
                .is_ok()
        })
}

/// What follows the base64 key in an `AUTH(RSAPUBLICKEY)` payload (`user@host`), for the
/// journal.
pub fn key_comment(payload: &[u8]) -> String {
    let text = String::from_utf8_lossy(payload);
    let text = text.trim_matches(char::from(0)).trim();
    text.split_once(' ')
        .map(|(_, c)| c.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `adb keygen` (the real client) makes a key pair in `dir`: the private key file's path.
    fn adb_keygen(dir: &Path, name: &str) -> PathBuf {
        let key = dir.join(name);
        let out = std::process::Command::new(
            crate::sandbox::find_host_program("adb").expect("adb on PATH"),
        )
        .arg("keygen")
        .arg(&key)
        .env("HOME", dir)
        .output()
        .expect("adb keygen runs");
        assert!(key.is_file(), "adb keygen: {out:?}");
        key
    }

    fn sign(private: &Path, token: &[u8]) -> Vec<u8> {
        let text = std::fs::read_to_string(private).unwrap();
        RsaPrivateKey::from_pkcs8_pem(&text)
            .unwrap()
            .sign(Pkcs1v15Sign::new::<Sha1>(), token)
            .unwrap()
    }

    #[test]
    fn adb_public_keys_parse_to_the_private_keys_public_half() {
        let dir = tempfile::tempdir().unwrap();
        let key = adb_keygen(dir.path(), "adbkey");
        let text = std::fs::read_to_string(with_suffix(&key, ".pub")).unwrap();
        assert!(text.contains(' '), "base64 then user@host: {text}");
        let public = parse_public_key(&text).expect("adb's public key format");
        assert_eq!(Some(&public), key_file(&key).as_ref());
        // As sent in AUTH(RSAPUBLICKEY): NUL-terminated.
        assert_eq!(parse_public_key(&format!("{text}\0")), Some(public));
        assert_eq!(parse_public_key("bm90IGEga2V5 me@here"), None);
        assert_eq!(parse_public_key(""), None);
        assert_eq!(
            key_comment(format!("{text}\0").as_bytes()),
            text.split_once(' ').unwrap().1.trim()
        );
    }

    #[test]
    fn only_a_signature_of_this_token_by_an_authorised_key_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let mine = adb_keygen(dir.path(), "mine");
        let theirs = adb_keygen(dir.path(), "theirs");
        let authorised = AuthorizedKeys::Files(vec![with_suffix(&mine, ".pub")]).load();
        assert_eq!(authorised.len(), 1);
        let token = new_token();
        assert_ne!(token, new_token());
        assert!(verify(&authorised, &token, &sign(&mine, &token)));
        assert!(!verify(&authorised, &token, &sign(&theirs, &token)));
        assert!(!verify(&authorised, &new_token(), &sign(&mine, &token)));
        assert!(!verify(&authorised, &token, b"garbage"));
        assert!(!verify(&[], &token, &sign(&mine, &token)));
    }

    #[test]
    fn the_users_keys_are_adbs_home_key_and_vendor_keys() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        std::fs::create_dir(home.join(".android")).unwrap();
        adb_keygen(&home.join(".android"), "adbkey");
        let vendor_dir = home.join("vendor");
        std::fs::create_dir(&vendor_dir).unwrap();
        let vendor_key = adb_keygen(&vendor_dir, "ci.adb_key");
        // Only the private half: the public half is taken from it.
        std::fs::remove_file(with_suffix(&vendor_key, ".pub")).unwrap();
        let ignored = adb_keygen(&vendor_dir, "other.key");
        let single = adb_keygen(home, "single");
        let vendor = format!("{}:{}", vendor_dir.display(), single.display());
        let paths = adb_key_paths(Some(home), vendor.as_ref());
        assert_eq!(
            paths,
            vec![home.join(".android/adbkey"), vendor_key.clone(), single]
        );
        let keys = public_halves(&paths);
        assert_eq!(keys.len(), 3);
        let token = new_token();
        assert!(verify(&keys, &token, &sign(&vendor_key, &token)));
        assert!(!verify(&keys, &token, &sign(&ignored, &token)));
        // Missing files count for none.
        assert!(public_halves(&adb_key_paths(Some(&home.join("nobody")), "".as_ref())).is_empty());
    }
}
