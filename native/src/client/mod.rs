//! The client side of broker-to-broker connections (the replica fetchers'): they go to the
//! other broker's endpoint on the inter-broker listener (`inter.broker.listener.name`) with
//! that listener's security, as Kafka's brokers connect:
//!
//! - SSL and SASL_SSL: TLS with rustls, trusting the listener's trust store
//!   (`ssl.truststore.*`, or its `listener.name.<inter>.ssl.*` override) and presenting the
//!   broker's own key store as client certificate, so `ssl.client.auth=required` holds between
//!   brokers too; the other broker's name is checked per
//!   `ssl.endpoint.identification.algorithm`.
//! - SASL_PLAINTEXT and SASL_SSL: the SASL exchange of Kafka's Java client (ApiVersions,
//!   SaslHandshake, SaslAuthenticate) with `sasl.mechanism.inter.broker.protocol` and the
//!   broker's own credentials, which the control plane reads from the listener's JAAS line and
//!   hands over as [`SaslCredentials`] (the JAAS parsing stays in one place, in Python).

pub mod connection;
pub mod sasl;
mod scram;
pub mod tls;

use std::fmt;
use std::io;
use std::sync::Arc;

use tokio_rustls::rustls::ClientConfig;

use crate::properties::{table::server, Props};

pub use connection::BrokerConnection;

/// The SASL mechanisms a broker can authenticate to another with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaslMechanism {
    Plain,
    ScramSha256,
    ScramSha512,
}

impl SaslMechanism {
    /// Kafka's name of the mechanism (`sasl.mechanism.inter.broker.protocol`).
    pub fn parse(name: &str) -> Result<SaslMechanism, String> {
        match name {
            "PLAIN" => Ok(SaslMechanism::Plain),
            "SCRAM-SHA-256" => Ok(SaslMechanism::ScramSha256),
            "SCRAM-SHA-512" => Ok(SaslMechanism::ScramSha512),
            other => Err(format!(
                "SASL mechanism {other:?}: ferrolog's brokers authenticate with PLAIN, \
                 SCRAM-SHA-256 or SCRAM-SHA-512"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SaslMechanism::Plain => "PLAIN",
            SaslMechanism::ScramSha256 => "SCRAM-SHA-256",
            SaslMechanism::ScramSha512 => "SCRAM-SHA-512",
        }
    }
}

/// The broker's own SASL identity towards other brokers.
#[derive(Clone)]
pub struct SaslCredentials {
    pub mechanism: SaslMechanism,
    pub username: String,
    pub password: String,
}

impl fmt::Debug for SaslCredentials {
    // The password stays out of logs and panics.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslCredentials")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// The TLS of an SSL or SASL_SSL inter-broker listener: what it was built from (the control
/// plane's connections use the same), and the rustls config.
type Tls = (Arc<tls::Material>, Arc<ClientConfig>);

/// How this broker connects to the others: the inter-broker listener and its security.
#[derive(Debug, Clone)]
pub struct InterBrokerSecurity {
    /// The listener's name, for messages.
    pub listener: String,
    /// Its security protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
    pub protocol: String,
    /// TLS of an SSL or SASL_SSL listener. An error is kept rather than refused at start: a
    /// single broker never connects to another, and Kafka serves one with an SSL
    /// inter-broker listener and no trust store (the control plane refuses that in a
    /// cluster); a fetcher that would need it reports it instead.
    tls: Option<Result<Tls, String>>,
    /// The credentials of a SASL listener, given by the control plane
    /// ([`InterBrokerSecurity::set_sasl`]).
    sasl: Option<SaslCredentials>,
}

impl Default for InterBrokerSecurity {
    fn default() -> Self {
        InterBrokerSecurity {
            listener: "PLAINTEXT".into(),
            protocol: "PLAINTEXT".into(),
            tls: None,
            sasl: None,
        }
    }
}

impl InterBrokerSecurity {
    /// The inter-broker listener `listener`, whose security protocol is `protocol`.
    pub fn read(
        p: &mut Props<'_>,
        listener: &str,
        protocol: &str,
    ) -> Result<InterBrokerSecurity, String> {
        let protocol = protocol.to_ascii_uppercase();
        let tls = match protocol.as_str() {
            "PLAINTEXT" | "SASL_PLAINTEXT" => {
                // Read all the same: the map holds it whatever the listener.
                p.listener_text(listener, &server::SSL_ENDPOINT_IDENTIFICATION_ALGORITHM)?;
                None
            }
            "SSL" | "SASL_SSL" => Some(tls::material(p, listener)?.and_then(|material| {
                let config = tls::client_config(&material)
                    .map_err(|e| format!("listener {listener}: {e}"))?;
                Ok((Arc::new(material), config))
            })),
            other => {
                return Err(format!(
                    "inter-broker listener {listener}: unknown security protocol {other}"
                ))
            }
        };
        Ok(InterBrokerSecurity {
            listener: listener.to_string(),
            protocol,
            tls,
            sasl: None,
        })
    }

    /// Whether the listener authenticates with SASL.
    pub fn is_sasl(&self) -> bool {
        self.protocol.starts_with("SASL_")
    }

    /// Gives the broker's SASL credentials; refused for a listener without SASL, so a
    /// mistake in the control plane shows at start.
    pub fn set_sasl(&mut self, credentials: Option<SaslCredentials>) -> Result<(), String> {
        if credentials.is_some() && !self.is_sasl() {
            return Err(format!(
                "inter-broker SASL credentials given, but listener {} is {}",
                self.listener, self.protocol
            ));
        }
        self.sasl = credentials;
        Ok(())
    }

    fn tls(&self) -> io::Result<Option<Arc<ClientConfig>>> {
        match &self.tls {
            None => Ok(None),
            Some(Ok((_, config))) => Ok(Some(Arc::clone(config))),
            Some(Err(e)) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("inter-broker listener {}: {e}", self.listener),
            )),
        }
    }

    /// The TLS material of an SSL or SASL_SSL listener (None for the others), for the control
    /// plane's connections to other brokers.
    pub fn tls_material(&self) -> Result<Option<&tls::Material>, String> {
        match &self.tls {
            None => Ok(None),
            Some(Ok((material, _))) => Ok(Some(material)),
            Some(Err(e)) => Err(format!("inter-broker listener {}: {e}", self.listener)),
        }
    }

    fn sasl(&self) -> io::Result<Option<&SaslCredentials>> {
        match (&self.sasl, self.is_sasl()) {
            (Some(credentials), _) => Ok(Some(credentials)),
            (None, false) => Ok(None),
            (None, true) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "inter-broker listener {} is {} and this broker has no SASL credentials",
                    self.listener, self.protocol
                ),
            )),
        }
    }
}
