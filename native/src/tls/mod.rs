//! TLS that the server and the inter-broker client share: a listener's key and trust stores
//! read from Kafka's `ssl.*` properties, the enabled protocols, and the principal a client
//! certificate stands for (`principal`, `ssl_principal_mapper`).
//!
//! Key stores: PEM (KIP-651: a file with the key and the chain, or both inline) and PKCS12.
//! A "JKS" store is read when it is in fact a PKCS12 file, which is what keytool writes by
//! default since Java 9; a real JKS file is refused with that advice.

pub mod principal;
pub mod ssl_principal_mapper;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{self, RootCertStore, SupportedProtocolVersion};

use crate::properties::{table::server, Props};

/// A listener's key and trust store properties, each overridable as
/// `listener.name.<listener>.<property>`: what its server side serves with, and what a broker
/// connecting to others over it (the inter-broker client) presents and trusts.
pub(crate) struct Stores<'a> {
    keystore_type: &'a str,
    keystore_location: Option<&'a str>,
    keystore_password: Option<&'a str>,
    key_password: Option<&'a str>,
    inline_key: Option<&'a str>,
    inline_chain: Option<&'a str>,
    truststore_type: &'a str,
    truststore_location: Option<&'a str>,
    truststore_password: Option<&'a str>,
    inline_trusted: Option<&'a str>,
}

impl<'a> Stores<'a> {
    pub(crate) fn read(p: &mut Props<'a>, listener: &str) -> Result<Stores<'a>, String> {
        let mut text = |property| p.listener_text(listener, property);
        Ok(Stores {
            keystore_type: text(&server::SSL_KEYSTORE_TYPE)?.unwrap_or("JKS"),
            keystore_location: text(&server::SSL_KEYSTORE_LOCATION)?,
            keystore_password: text(&server::SSL_KEYSTORE_PASSWORD)?,
            key_password: text(&server::SSL_KEY_PASSWORD)?,
            inline_key: text(&server::SSL_KEYSTORE_KEY)?,
            inline_chain: text(&server::SSL_KEYSTORE_CERTIFICATE_CHAIN)?,
            truststore_type: text(&server::SSL_TRUSTSTORE_TYPE)?.unwrap_or("JKS"),
            truststore_location: text(&server::SSL_TRUSTSTORE_LOCATION)?,
            truststore_password: text(&server::SSL_TRUSTSTORE_PASSWORD)?,
            inline_trusted: text(&server::SSL_TRUSTSTORE_CERTIFICATES)?,
        })
    }

    /// The key store's certificate chain and private key.
    pub(crate) fn key_pair(&self) -> Result<KeyPair, String> {
        key_store(
            self.keystore_type,
            self.keystore_location,
            self.keystore_password,
            self.key_password,
            self.inline_key,
            self.inline_chain,
        )
    }

    /// The trust store's certificates, None when none is configured.
    pub(crate) fn trusted(&self) -> Result<Option<Vec<CertificateDer<'static>>>, String> {
        trusted_certificates(
            self.truststore_type,
            self.truststore_location,
            self.truststore_password,
            self.inline_trusted,
        )
    }
}

pub(crate) fn protocol_versions(
    names: &[&str],
) -> Result<Vec<&'static SupportedProtocolVersion>, String> {
    let mut versions = Vec::new();
    for name in names {
        match *name {
            "TLSv1.3" => versions.push(&rustls::version::TLS13),
            "TLSv1.2" => versions.push(&rustls::version::TLS12),
            // Kafka's default list once held these; the JDK disables them too.
            "TLSv1" | "TLSv1.1" => log::warn!("ssl.enabled.protocols: {name} is not supported"),
            other => return Err(format!("ssl.enabled.protocols: unknown protocol {other:?}")),
        }
    }
    if versions.is_empty() {
        return Err("ssl.enabled.protocols: neither TLSv1.2 nor TLSv1.3 is enabled".into());
    }
    Ok(versions)
}

pub(crate) type KeyPair = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

fn key_store(
    kind: &str,
    location: Option<&str>,
    password: Option<&str>,
    key_password: Option<&str>,
    inline_key: Option<&str>,
    inline_chain: Option<&str>,
) -> Result<KeyPair, String> {
    match (kind, inline_key, inline_chain) {
        ("PEM", Some(key), Some(chain)) => {
            if location.is_some() {
                return Err("ssl.keystore.location and ssl.keystore.key are both set".into());
            }
            pem_key_pair(key.as_bytes(), chain.as_bytes(), key_password)
        }
        (_, Some(_), _) | (_, _, Some(_)) if kind != "PEM" => Err(
            "ssl.keystore.key and ssl.keystore.certificate.chain need ssl.keystore.type=PEM".into(),
        ),
        (_, Some(_), None) | (_, None, Some(_)) => {
            Err("ssl.keystore.key and ssl.keystore.certificate.chain go together".into())
        }
        _ => {
            let location = location.ok_or(
                "an SSL listener needs ssl.keystore.location (or, with PEM, ssl.keystore.key)",
            )?;
            let data = std::fs::read(location)
                .map_err(|e| format!("ssl.keystore.location {location}: {e}"))?;
            if kind == "PEM" {
                return pem_key_pair(&data, &data, key_password)
                    .map_err(|e| format!("ssl.keystore.location {location}: {e}"));
            }
            pkcs12_key_pair(kind, &data, password.or(key_password).unwrap_or(""))
                .map_err(|e| format!("ssl.keystore.location {location}: {e}"))
        }
    }
}

fn pem_key_pair(key: &[u8], chain: &[u8], key_password: Option<&str>) -> Result<KeyPair, String> {
    let certs = CertificateDer::pem_slice_iter(chain)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("certificate chain: {e}"))?;
    if certs.is_empty() {
        return Err("no certificate in the PEM chain".into());
    }
    let key = match PrivateKeyDer::from_pem_slice(key) {
        Ok(key) => key,
        Err(e) if key_password.is_some() => {
            return Err(format!(
                "private key: {e} (ferrolog reads unencrypted PEM keys only so far)"
            ))
        }
        Err(e) => return Err(format!("private key: {e}")),
    };
    Ok((certs, key))
}

fn pkcs12_store(
    kind: &str,
    data: &[u8],
    password: &str,
    policy: p12_keystore::Pkcs12ImportPolicy,
) -> Result<p12_keystore::KeyStore, String> {
    p12_keystore::KeyStore::from_pkcs12(data, password, policy).map_err(|e| {
        if kind == "JKS" {
            format!("not a PKCS12 file ({e}); ferrolog cannot read the JKS format: convert it with `keytool -importkeystore -deststoretype PKCS12`")
        } else {
            format!("{e}")
        }
    })
}

fn pkcs12_key_pair(kind: &str, data: &[u8], password: &str) -> Result<KeyPair, String> {
    let store = pkcs12_store(
        kind,
        data,
        password,
        p12_keystore::Pkcs12ImportPolicy::Strict,
    )?;
    let (_, chain) = store
        .private_key_chain()
        .ok_or("no private key with its certificate in the key store")?;
    let certs = chain
        .certs()
        .iter()
        .map(|c| CertificateDer::from(c.as_der().to_vec()))
        .collect();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(chain.key().as_der().to_vec()));
    Ok((certs, key))
}

/// The rustls trust anchors of a trust store's certificates.
pub(crate) fn roots(certs: Vec<CertificateDer<'static>>) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    for cert in certs {
        roots
            .add(cert)
            .map_err(|e| format!("a trust store certificate: {e}"))?;
    }
    if roots.is_empty() {
        return Err("the trust store holds no certificate".into());
    }
    Ok(roots)
}

/// The certificates of a trust store, None when none is configured.
fn trusted_certificates(
    kind: &str,
    location: Option<&str>,
    password: Option<&str>,
    inline: Option<&str>,
) -> Result<Option<Vec<CertificateDer<'static>>>, String> {
    let certs: Vec<CertificateDer<'static>> = match (location, inline) {
        (Some(_), Some(_)) => {
            return Err(
                "ssl.truststore.location and ssl.truststore.certificates are both set".into(),
            )
        }
        (None, None) => return Ok(None),
        (None, Some(pem)) => {
            if kind != "PEM" {
                return Err("ssl.truststore.certificates needs ssl.truststore.type=PEM".into());
            }
            CertificateDer::pem_slice_iter(pem.as_bytes())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("ssl.truststore.certificates: {e}"))?
        }
        (Some(location), None) => {
            let data = std::fs::read(location)
                .map_err(|e| format!("ssl.truststore.location {location}: {e}"))?;
            if kind == "PEM" {
                CertificateDer::pem_slice_iter(&data)
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("ssl.truststore.location {location}: {e}"))?
            } else {
                // Raw: every certificate of the file is trusted, whether or not a tool marked
                // it so (keytool does, openssl does not).
                let store = pkcs12_store(
                    kind,
                    &data,
                    password.unwrap_or(""),
                    p12_keystore::Pkcs12ImportPolicy::Raw,
                )
                .map_err(|e| format!("ssl.truststore.location {location}: {e}"))?;
                store
                    .entries()
                    .filter_map(|(_, entry)| match entry {
                        p12_keystore::KeyStoreEntry::Certificate(c) => {
                            Some(CertificateDer::from(c.as_der().to_vec()))
                        }
                        _ => None,
                    })
                    .collect()
            }
        }
    };
    Ok(Some(certs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols() {
        assert_eq!(protocol_versions(&["TLSv1.2", "TLSv1.3"]).unwrap().len(), 2);
        assert!(protocol_versions(&["TLSv1.1"]).is_err());
        assert!(protocol_versions(&["SSLv3"]).is_err());
    }
}
