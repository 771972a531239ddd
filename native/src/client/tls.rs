//! The rustls client config of an SSL (or SASL_SSL) inter-broker listener, from the same
//! `ssl.*` properties (and `listener.name.<inter>.ssl.*` overrides) and the same store loading
//! as the listener's server side ([`crate::tls`]).

use std::sync::Arc;

use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::client::verify_server_cert_signed_by_trust_anchor;
use tokio_rustls::rustls::crypto::{
    verify_tls12_signature, verify_tls13_signature, CryptoProvider,
};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use tokio_rustls::rustls::server::ParsedCertificate;
use tokio_rustls::rustls::{
    self, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
    SupportedProtocolVersion,
};

use crate::properties::{table::server, Props};
use crate::tls::{protocol_versions, roots, Stores};

/// What a broker connects to others with over TLS, as read from its stores: for rustls here,
/// and for the control plane's own connections (Python's `ssl`), so both trust and present
/// exactly the same.
#[derive(Debug)]
pub struct Material {
    /// The broker's certificate chain, its own first.
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
    /// The certificates of the trust store.
    pub trusted: Vec<CertificateDer<'static>>,
    /// `ssl.endpoint.identification.algorithm` is https: the other broker's certificate must
    /// name the host connected to.
    pub check_name: bool,
    versions: Vec<&'static SupportedProtocolVersion>,
}

/// The TLS material of listener `listener`, or why there is none (kept for the fetchers to
/// report, see [`super::InterBrokerSecurity`]). Properties that are malformed whatever the
/// stores hold are an error at once.
pub(super) fn material(
    p: &mut Props<'_>,
    listener: &str,
) -> Result<Result<Material, String>, String> {
    let stores = Stores::read(p, listener)?;
    let mut text = |property| p.listener_text(listener, property);
    let identification = text(&server::SSL_ENDPOINT_IDENTIFICATION_ALGORITHM)?.unwrap_or("");
    let check_name = match identification.trim() {
        "" => false,
        name if name.eq_ignore_ascii_case("https") => true,
        other => {
            return Err(format!(
                "ssl.endpoint.identification.algorithm {other:?}: ferrolog knows https and \
                 empty (no check)"
            ))
        }
    };
    let protocols = p.listener_list(listener, &server::SSL_ENABLED_PROTOCOLS)?;
    let versions = protocol_versions(&protocols)?;
    let read = (|| {
        let trusted = stores.trusted()?.ok_or(
            "connecting to other brokers over TLS needs a trust store (ssl.truststore.location \
             or ssl.truststore.certificates)",
        )?;
        // Kafka's brokers present their key store to each other: a listener with
        // ssl.client.auth=required accepts them.
        let (chain, key) = stores.key_pair()?;
        Ok::<_, String>(Material {
            chain,
            key,
            trusted,
            check_name,
            versions,
        })
    })();
    Ok(read.map_err(|e| format!("listener {listener}: {e}")))
}

/// The rustls client config of `material`.
pub(super) fn client_config(material: &Material) -> Result<Arc<ClientConfig>, String> {
    let roots = roots(material.trusted.clone())?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&material.versions)
        .map_err(|e| format!("ssl.enabled.protocols: {e}"))?;
    let builder = if material.check_name {
        builder.with_root_certificates(roots)
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(ChainOnly { roots, provider }))
    };
    let config = builder
        .with_client_auth_cert(material.chain.clone(), material.key.clone_key())
        .map_err(|e| format!("the key store's key and certificate: {e}"))?;
    Ok(Arc::new(config))
}

/// `ssl.endpoint.identification.algorithm` empty: the other broker's certificate must chain to
/// the trust store, but need not name the host connected to (Kafka's behaviour then).
#[derive(Debug)]
struct ChainOnly {
    roots: RootCertStore,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let cert = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(
            &cert,
            &self.roots,
            intermediates,
            now,
            self.provider.signature_verification_algorithms.all,
        )?;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
