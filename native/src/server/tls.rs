//! TLS of the SSL listeners: the rustls server config built from Kafka's `ssl.*` properties
//! (each overridable per listener as `listener.name.<name>.ssl.*`), with the key and trust
//! stores read as the inter-broker client reads them (`crate::tls`), and the listener's
//! `ssl.principal.mapping.rules`.

use std::sync::Arc;

use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{self, ServerConfig};

use crate::properties::{table::server, Props};
use crate::tls::ssl_principal_mapper::SslPrincipalMapper;
use crate::tls::{protocol_versions, roots, Stores};

/// What `ssl.client.auth` asks of clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    Requested,
    Required,
}

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
