//! TLS of the SSL listeners: the rustls server config built from Kafka's `ssl.*` properties
//! (each overridable per listener as `listener.name.<name>.ssl.*`), and the subject name of a
//! client certificate, which the listener's `ssl.principal.mapping.rules` turn into its principal.
//!
//! Key stores: PEM (KIP-651: a file with the key and the chain, or both inline) and PKCS12.
//! A "JKS" store is read when it is in fact a PKCS12 file, which is what keytool writes by
//! default since Java 9; a real JKS file is refused with that advice.

use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{self, RootCertStore, ServerConfig, SupportedProtocolVersion};

use super::ssl_principal_mapper::SslPrincipalMapper;
use crate::properties::{table::server, Props};

/// What `ssl.client.auth` asks of clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    Requested,
    Required,
}

/// The principal of a connection without a client certificate (Kafka's `User:ANONYMOUS`).
pub const ANONYMOUS_PRINCIPAL: &str = "User:ANONYMOUS";

/// Reads the `ssl.*` properties once, as the base every listener overrides: every property
/// the table marks native is read whether or not a listener uses TLS.
pub fn read_base(p: &mut Props<'_>) -> Result<(), String> {
    p.text(&server::SSL_KEYSTORE_TYPE)?;
    p.text(&server::SSL_TRUSTSTORE_TYPE)?;
    p.text(&server::SSL_CLIENT_AUTH)?;
    p.list(&server::SSL_ENABLED_PROTOCOLS)?;
    p.text(&server::SSL_PRINCIPAL_MAPPING_RULES)?;
    for property in [
        &server::SSL_KEYSTORE_LOCATION,
        &server::SSL_KEYSTORE_PASSWORD,
        &server::SSL_KEY_PASSWORD,
        &server::SSL_KEYSTORE_KEY,
        &server::SSL_KEYSTORE_CERTIFICATE_CHAIN,
        &server::SSL_TRUSTSTORE_LOCATION,
        &server::SSL_TRUSTSTORE_PASSWORD,
        &server::SSL_TRUSTSTORE_CERTIFICATES,
    ] {
        p.optional_text(property)?;
    }
    Ok(())
}

/// What an SSL (or SASL_SSL) listener needs of TLS.
#[derive(Debug, Clone)]
pub struct ListenerTls {
    pub config: Arc<ServerConfig>,
    pub principal_mapper: Arc<SslPrincipalMapper>,
}

/// The TLS of the SSL listener `listener`, from its properties.
pub fn listener_tls(p: &mut Props<'_>, listener: &str) -> Result<ListenerTls, String> {
    let context = |e: String| format!("listener {listener}: {e}");
    build(p, listener).map_err(context)
}

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

fn build(p: &mut Props<'_>, listener: &str) -> Result<ListenerTls, String> {
    let stores = Stores::read(p, listener)?;
    let mut text = |property| p.listener_text(listener, property);
    let client_auth = match text(&server::SSL_CLIENT_AUTH)?.unwrap_or("none") {
        "required" => ClientAuth::Required,
        "requested" => ClientAuth::Requested,
        _ => ClientAuth::None,
    };
    let rules = text(&server::SSL_PRINCIPAL_MAPPING_RULES)?.unwrap_or("DEFAULT");
    let principal_mapper = Arc::new(SslPrincipalMapper::from_rules(rules)?);
    let protocols = p.listener_list(listener, &server::SSL_ENABLED_PROTOCOLS)?;

    let (chain, key) = stores.key_pair()?;
    let versions = protocol_versions(&protocols)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&versions)
        .map_err(|e| format!("ssl.enabled.protocols: {e}"))?;
    let builder = if client_auth == ClientAuth::None {
        builder.with_no_client_auth()
    } else {
        let roots = stores.trusted()?.map(roots).transpose()?.ok_or_else(|| {
            "ssl.client.auth needs a trust store (ssl.truststore.location or \
                 ssl.truststore.certificates)"
                .to_string()
        })?;
        let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
        let verifier = if client_auth == ClientAuth::Requested {
            verifier.allow_unauthenticated()
        } else {
            verifier
        };
        builder.with_client_cert_verifier(
            verifier
                .build()
                .map_err(|e| format!("the trust store: {e}"))?,
        )
    };
    let config = builder
        .with_single_cert(chain, key)
        .map_err(|e| format!("the key store's key and certificate: {e}"))?;
    Ok(ListenerTls {
        config: Arc::new(config),
        principal_mapper,
    })
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

/// A client certificate's subject as Kafka's principal mapping rules see it: the distinguished
/// name as Java's `X500Principal.getName()` writes it (RFC 2253: the last RDN first, no spaces,
/// special characters escaped).
pub fn subject_name(der: &[u8]) -> Option<String> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
    Some(rfc2253(cert.subject()))
}

fn rfc2253(name: &x509_parser::x509::X509Name<'_>) -> String {
    let rdns: Vec<String> = name
        .iter_rdn()
        .map(|rdn| {
            rdn.iter()
                .map(|attribute| {
                    let oid = attribute.attr_type().to_id_string();
                    match (keyword(&oid), attribute.as_str()) {
                        (Some(keyword), Ok(value)) => format!("{keyword}={}", escape(value)),
                        // Java writes other attributes as the OID and the value's DER in hex.
                        _ => {
                            let value = attribute.attr_value();
                            let mut der = Vec::new();
                            der.push(value.tag().0 as u8);
                            push_length(&mut der, value.data.len());
                            der.extend_from_slice(value.data);
                            let hex: String = der.iter().map(|b| format!("{b:02x}")).collect();
                            format!("{oid}=#{hex}")
                        }
                    }
                })
                .collect::<Vec<_>>()
                .join("+")
        })
        .collect();
    rdns.into_iter().rev().collect::<Vec<_>>().join(",")
}

fn push_length(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
        return;
    }
    let bytes: Vec<u8> = len
        .to_be_bytes()
        .into_iter()
        .skip_while(|b| *b == 0)
        .collect();
    out.push(0x80 | bytes.len() as u8);
    out.extend(bytes);
}

/// The RFC 2253 keywords Java's `X500Principal` writes.
fn keyword(oid: &str) -> Option<&'static str> {
    Some(match oid {
        "2.5.4.3" => "CN",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.9" => "STREET",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "0.9.2342.19200300.100.1.1" => "UID",
        "0.9.2342.19200300.100.1.25" => "DC",
        _ => return None,
    })
}

fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let last = value.chars().count().saturating_sub(1);
    for (i, c) in value.chars().enumerate() {
        let special = matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';')
            || (i == 0 && (c == '#' || c == ' '))
            || (i == last && c == ' ');
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use x509_parser::prelude::FromDer;

    #[test]
    fn escapes_as_rfc_2253() {
        assert_eq!(escape("a,b"), "a\\,b");
        assert_eq!(escape(" x "), "\\ x\\ ");
        assert_eq!(escape("#1"), "\\#1");
        assert_eq!(escape("plain"), "plain");
    }

    /// DER of one TLV.
    fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        push_length(&mut out, content.len());
        out.extend_from_slice(content);
        out
    }

    /// DER of an AttributeTypeAndValue with a UTF8String value.
    fn attribute(oid: &[u8], value: &str) -> Vec<u8> {
        let mut inner = tlv(0x06, oid);
        inner.extend(tlv(0x0c, value.as_bytes()));
        tlv(0x30, &inner)
    }

    #[test]
    fn subject_names_are_written_as_javas_x500_principal() {
        const C: &[u8] = &[0x55, 0x04, 0x06];
        const O: &[u8] = &[0x55, 0x04, 0x0a];
        const OU: &[u8] = &[0x55, 0x04, 0x0b];
        const CN: &[u8] = &[0x55, 0x04, 0x03];
        // emailAddress (1.2.840.113549.1.9.1): no RFC 2253 keyword
        const EMAIL: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01];
        // In DER order (C first); a multi-valued RDN (O + OU); a CN that needs escaping.
        let rdns = [
            tlv(0x31, &attribute(C, "US")),
            tlv(
                0x31,
                &[attribute(O, "ferrolog"), attribute(OU, "tests")].concat(),
            ),
            tlv(0x31, &attribute(CN, "Smith, John")),
            tlv(0x31, &attribute(EMAIL, "a@b")),
        ];
        let der = tlv(0x30, &rdns.concat());
        let (_, name) = x509_parser::x509::X509Name::from_der(&der).expect("a name");
        assert_eq!(
            rfc2253(&name),
            "1.2.840.113549.1.9.1=#0c03614062,CN=Smith\\, John,O=ferrolog+OU=tests,C=US"
        );
    }

    #[test]
    fn protocols() {
        assert_eq!(protocol_versions(&["TLSv1.2", "TLSv1.3"]).unwrap().len(), 2);
        assert!(protocol_versions(&["TLSv1.1"]).is_err());
        assert!(protocol_versions(&["SSLv3"]).is_err());
    }
}
