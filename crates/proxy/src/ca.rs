//! The proxy's certificate authority: made once (ECDSA P-256, ten years) and kept in the state
//! directory as `proxy-ca.pem` (the certificate, served to users to trust) and
//! `proxy-ca-key.pem` (the private key: mode 0600, never served, never logged), and the
//! certificates it issues on the fly for each intercepted host (one key pair per run, names
//! as DNS or IP subject alternative names, cached).
//!
//! The issuer is rebuilt from the key alone ([`ca_params`] is a function of the key), and a
//! loaded pair is checked by issuing a certificate and verifying it against the stored CA
//! certificate with rustls: a certificate and key that do not belong together are refused.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType, SerialNumber,
};
use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::ServerConfig;
use sha2::{Digest, Sha256};

use mobilectl_error::{Error, ErrorCode, Result};

/// File name of the CA certificate (PEM) in the state directory.
pub const CERT_FILE: &str = "proxy-ca.pem";
/// File name of the CA's private key (PEM, mode 0600) in the state directory.
pub const KEY_FILE: &str = "proxy-ca-key.pem";

/// Issued certificates kept per host before the cache is emptied.
const CACHE_HOSTS: usize = 1024;

/// The crypto provider of every TLS configuration the proxy makes.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificate authority of the proxy. Its `Debug` shows the certificate's fingerprint only.
pub struct Ca {
    issuer: Issuer<'static, KeyPair>,
    cert_pem: String,
    cert_der: CertificateDer<'static>,
    /// Where the certificate is on disk (`None`: kept in memory, see [`Ca::in_memory`]).
    cert_path: Option<PathBuf>,
}

impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ca({})", self.fingerprint())
    }
}

/// The CA's name and constraints, derived from its key alone, so the issuer can be rebuilt
/// from the stored key. Changing this function orphans the CAs already made.
fn ca_params(key: &KeyPair) -> CertificateParams {
    let id = hex(&Sha256::digest(key.public_key_raw()))[..8].to_string();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, format!("mobilectl proxy CA {id}"));
    dn.push(DnType::OrganizationName, "mobilectl");
    let mut p = CertificateParams::default();
    p.distinguished_name = dn;
    p.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    p
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn ca_error(what: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Unknown,
        format!("the proxy's certificate authority: {what}"),
    )
    .with_hint("check that the state directory (MOBILECTL_STATE_DIR) is writable")
}

impl Ca {
    /// A CA that lives as long as the process (no state directory: embedded servers, tests).
    pub fn in_memory() -> Result<Ca> {
        let key = KeyPair::generate().map_err(ca_error)?;
        Self::create(key, None)
    }

    /// Loads the CA of `dir`, or makes one there.
    pub fn load_or_create(dir: &Path) -> Result<Ca> {
        let (cert_path, key_path) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
        match (cert_path.exists(), key_path.exists()) {
            (true, true) => Self::load(&cert_path, &key_path),
            (false, false) => {
                create_private_dir(dir)?;
                let key = KeyPair::generate().map_err(ca_error)?;
                let ca = Self::create(key, Some(cert_path.clone()))?;
                write_private(&key_path, ca.issuer.key().serialize_pem().as_bytes())?;
                write_public(&cert_path, ca.cert_pem.as_bytes())?;
                tracing::info!(path = %cert_path.display(), fingerprint = %ca.fingerprint(), "made the proxy's CA");
                Ok(ca)
            }
            (cert, _) => {
                let (there, missing) = if cert {
                    (&cert_path, &key_path)
                } else {
                    (&key_path, &cert_path)
                };
                Err(ca_error(format!(
                    "{} exists but {} does not",
                    there.display(),
                    missing.display()
                ))
                .with_hint(format!(
                    "restore the missing file, or remove {} to make a new CA (devices that \
                     trust the old one must then trust the new one)",
                    there.display()
                )))
            }
        }
    }

    fn create(key: KeyPair, cert_path: Option<PathBuf>) -> Result<Ca> {
        let mut params = ca_params(&key);
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::days(1);
        params.not_after = now + time::Duration::days(3650);
        let cert = params.self_signed(&key).map_err(ca_error)?;
        Ok(Ca {
            cert_pem: cert.pem(),
            cert_der: cert.der().clone(),
            issuer: Issuer::new(params, key),
            cert_path,
        })
    }

    fn load(cert_path: &Path, key_path: &Path) -> Result<Ca> {
        tighten(key_path)?;
        let key_pem = std::fs::read_to_string(key_path).map_err(ca_error)?;
        let key = KeyPair::from_pem(&key_pem)
            .map_err(|_| ca_error(format!("{} is not a private key", key_path.display())))?;
        let cert_pem = std::fs::read_to_string(cert_path).map_err(ca_error)?;
        let cert_der = rustls::pki_types::pem::PemObject::from_pem_slice(cert_pem.as_bytes())
            .map_err(|_| ca_error(format!("{} is not a certificate", cert_path.display())))?;
        let ca = Ca {
            issuer: Issuer::new(ca_params(&key), key),
            cert_pem,
            cert_der,
            cert_path: Some(cert_path.to_path_buf()),
        };
        ca.self_check().map_err(|e| {
            ca_error(format!(
                "{} and {} do not belong together: {e}",
                cert_path.display(),
                key_path.display()
            ))
        })?;
        Ok(ca)
    }

    /// Issues a certificate and verifies it against the CA certificate, as a client would.
    fn self_check(&self) -> std::result::Result<(), String> {
        let leaf_key = KeyPair::generate().map_err(|e| e.to_string())?;
        let leaf = self.issue("mobilectl.invalid", &leaf_key)?;
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(self.cert_der.clone())
            .map_err(|e| e.to_string())?;
        let verifier =
            rustls::client::WebPkiServerVerifier::builder_with_provider(roots.into(), provider())
                .build()
                .map_err(|e| e.to_string())?;
        let name = ServerName::try_from("mobilectl.invalid").map_err(|e| e.to_string())?;
        verifier
            .verify_server_cert(&leaf, &[], &name, &[], UnixTime::now())
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// A server certificate for `host` (a DNS name or an IP address) with `key`, signed by
    /// the CA. Valid for a year from yesterday.
    pub fn issue(
        &self,
        host: &str,
        key: &KeyPair,
    ) -> std::result::Result<CertificateDer<'static>, String> {
        let mut p = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, host);
        p.distinguished_name = dn;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        p.subject_alt_names = vec![match host.parse::<std::net::IpAddr>() {
            Ok(ip) => SanType::IpAddress(ip),
            Err(_) => SanType::DnsName(host.try_into().map_err(|e| format!("{e}"))?),
        }];
        let now = time::OffsetDateTime::now_utc();
        p.not_before = now - time::Duration::days(1);
        p.not_after = now + time::Duration::days(365);
        let mut serial = [0u8; 16];
        provider()
            .secure_random
            .fill(&mut serial)
            .map_err(|e| format!("{e:?}"))?;
        serial[0] &= 0x7f;
        p.serial_number = Some(SerialNumber::from_slice(&serial));
        p.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        p.use_authority_key_identifier_extension = true;
        p.signed_by(key, &self.issuer)
            .map(|c| c.der().clone())
            .map_err(|e| e.to_string())
    }

    /// The certificate, PEM.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The certificate, DER (to trust it in a client).
    pub fn cert_der(&self) -> &CertificateDer<'static> {
        &self.cert_der
    }

    /// The certificate's file, when it is kept in the state directory.
    pub fn cert_path(&self) -> Option<&Path> {
        self.cert_path.as_deref()
    }

    /// SHA-256 of the certificate, as `openssl x509 -fingerprint -sha256` prints it.
    pub fn fingerprint(&self) -> String {
        Sha256::digest(self.cert_der.as_ref())
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(":")
    }

    /// The certificate's common name.
    pub fn name(&self) -> String {
        let id = hex(&Sha256::digest(self.issuer.key().public_key_raw()))[..8].to_string();
        format!("mobilectl proxy CA {id}")
    }
}

/// Makes the state directory (mode 0700 when it is created).
/// On Windows the folder is under the user's own profile, private by its ACL.
fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| ca_error(format!("cannot create {}: {e}", dir.display())))
}

/// Writes a file readable by its owner only, whole or not at all (a temporary file renamed).
fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with_mode(path, bytes, 0o600)
}

fn write_public(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with_mode(path, bytes, 0o644)
}

fn write_with_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let written = options
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(ca_error(format!("cannot write {}: {e}", path.display())));
    }
    Ok(())
}

/// A key file others can read is made owner-only again (Unix modes; on Windows the profile's
/// ACL decides).
#[cfg(not(unix))]
fn tighten(_key_path: &Path) -> Result<()> {
    Ok(())
}

/// A key file others can read is made owner-only again.
#[cfg(unix)]
fn tighten(key_path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(key_path).map_err(ca_error)?;
    if meta.permissions().mode() & 0o077 != 0 {
        tracing::warn!(path = %key_path.display(), "the proxy CA key was readable by others; made it 0600");
        std::fs::set_permissions(key_path, std::fs::Permissions::from_mode(0o600))
            .map_err(ca_error)?;
    }
    Ok(())
}

/// Issues and caches the server configurations the proxy presents to clients, one per host.
pub struct LeafIssuer {
    ca: Arc<Ca>,
    /// One key pair for every certificate of this run (the CA's own key only signs).
    leaf_key: KeyPair,
    leaf_key_der: Vec<u8>,
    cache: Mutex<HashMap<String, Arc<ServerConfig>>>,
}

impl LeafIssuer {
    /// An issuer signing with `ca`, with a fresh leaf key pair and an empty cache.
    pub fn new(ca: Arc<Ca>) -> Result<LeafIssuer> {
        let leaf_key = KeyPair::generate().map_err(ca_error)?;
        Ok(LeafIssuer {
            ca,
            leaf_key_der: leaf_key.serialize_der(),
            leaf_key,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The server configuration for `host`, made on first use.
    pub fn server_config(&self, host: &str) -> std::result::Result<Arc<ServerConfig>, String> {
        let host = host.to_ascii_lowercase();
        if let Some(c) = self.lock().get(&host) {
            return Ok(c.clone());
        }
        let cert = self.ca.issue(&host, &self.leaf_key)?;
        let key = PrivateKeyDer::from(PrivatePkcs8KeyDer::from(self.leaf_key_der.clone()));
        let mut config = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .map_err(|e| e.to_string())?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        let mut cache = self.lock();
        if cache.len() >= CACHE_HOSTS {
            cache.clear();
        }
        cache.insert(host, config.clone());
        Ok(config)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<ServerConfig>>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_ca_is_made_once_with_a_private_key_and_reloaded() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let made = Ca::load_or_create(&state).unwrap();
        let key = state.join(KEY_FILE);
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(made.cert_pem().starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(!made.cert_pem().contains("PRIVATE KEY"));
        assert!(!format!("{made:?}").contains("PRIVATE"));
        // Loaded again: the same certificate, and it still signs what verifies against it.
        let again = Ca::load_or_create(&state).unwrap();
        assert_eq!(again.fingerprint(), made.fingerprint());
        again.self_check().unwrap();
        // A key others can read is tightened on load.
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        Ca::load_or_create(&state).unwrap();
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn a_certificate_and_key_that_do_not_match_are_refused() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        Ca::load_or_create(a.path()).unwrap();
        Ca::load_or_create(b.path()).unwrap();
        std::fs::copy(b.path().join(KEY_FILE), a.path().join(KEY_FILE)).unwrap();
        let e = Ca::load_or_create(a.path()).unwrap_err();
        assert!(e.message.contains("do not belong together"), "{e:?}");
        // Half a pair is refused too, never overwritten.
        std::fs::remove_file(b.path().join(KEY_FILE)).unwrap();
        let e = Ca::load_or_create(b.path()).unwrap_err();
        assert!(e.message.contains("does not"), "{e:?}");
        assert!(b.path().join(CERT_FILE).exists());
    }

    #[test]
    fn certificates_name_hosts_and_addresses() {
        let ca = Arc::new(Ca::in_memory().unwrap());
        let auth = LeafIssuer::new(ca.clone()).unwrap();
        for host in ["api.example.com", "127.0.0.1", "::1"] {
            let cfg = auth.server_config(host).unwrap();
            // Cached: the same configuration the second time.
            assert!(Arc::ptr_eq(&cfg, &auth.server_config(host).unwrap()));
        }
        let key = KeyPair::generate().unwrap();
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.cert_der().clone()).unwrap();
        let verifier =
            rustls::client::WebPkiServerVerifier::builder_with_provider(roots.into(), provider())
                .build()
                .unwrap();
        for host in ["localhost", "127.0.0.1"] {
            let leaf = ca.issue(host, &key).unwrap();
            let name = ServerName::try_from(host).unwrap();
            verifier
                .verify_server_cert(&leaf, &[], &name, &[], UnixTime::now())
                .unwrap_or_else(|e| panic!("{host}: {e}"));
        }
        assert!(ca.fingerprint().len() == 95 && ca.name().starts_with("mobilectl proxy CA "));
    }
}
