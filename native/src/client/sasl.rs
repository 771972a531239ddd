//! The SASL exchange of a broker-to-broker connection, in the order of Kafka's Java client
//! (`SaslClientAuthenticator`): ApiVersions, SaslHandshake v1 naming the mechanism, then the
//! mechanism's messages in SaslAuthenticate requests (KIP-152), so a failure comes back as an
//! error code and message rather than a closed connection.

use std::io;
use std::time::Duration;

use bytes::Bytes;
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, SaslAuthenticateRequest,
    SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
};
use kafka_protocol::protocol::StrBytes;
use tokio_rustls::rustls::crypto::ring::default_provider;

use super::scram::{Hash, Scram};
use super::{BrokerConnection, SaslCredentials, SaslMechanism};

const API_VERSIONS_VERSION: i16 = 3;
const SASL_HANDSHAKE_VERSION: i16 = 1;
/// The newest SaslAuthenticate (flexible); an older server's newest is taken instead.
const SASL_AUTHENTICATE_VERSION: i16 = 2;

fn failed(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, why)
}

/// Authenticates `conn` with `credentials`; an error leaves the connection unusable.
pub async fn authenticate(
    conn: &mut BrokerConnection,
    credentials: &SaslCredentials,
) -> io::Result<()> {
    let versions = api_versions(conn).await?;
    let max_of = |key: ApiKey| {
        versions
            .api_keys
            .iter()
            .find(|v| v.api_key == key as i16)
            .map(|v| v.max_version)
    };
    if max_of(ApiKey::SaslHandshake).is_none_or(|v| v < SASL_HANDSHAKE_VERSION) {
        return Err(failed(
            "the broker has no SaslHandshake v1 (is its listener SASL?)".into(),
        ));
    }
    let authenticate_version = max_of(ApiKey::SaslAuthenticate)
        .ok_or_else(|| failed("the broker has no SaslAuthenticate".into()))?
        .min(SASL_AUTHENTICATE_VERSION);

    let mechanism = credentials.mechanism.name();
    let handshake: SaslHandshakeResponse = conn
        .call(
            ApiKey::SaslHandshake,
            SASL_HANDSHAKE_VERSION,
            &SaslHandshakeRequest::default().with_mechanism(StrBytes::from_static_str(mechanism)),
            Duration::ZERO,
        )
        .await?;
    if handshake.error_code != 0 {
        let offered: Vec<&str> = handshake.mechanisms.iter().map(|m| m.as_str()).collect();
        return Err(failed(format!(
            "SaslHandshake for {mechanism}: error {} (the broker offers {offered:?})",
            handshake.error_code
        )));
    }

    let mut exchange = Exchange {
        conn,
        version: authenticate_version,
        credentials,
    };
    match credentials.mechanism {
        SaslMechanism::Plain => {
            // RFC 4616: authzid (empty), authcid, password, NUL separated.
            let token = format!("\0{}\0{}", credentials.username, credentials.password);
            exchange.step(token.into_bytes()).await?;
        }
        SaslMechanism::ScramSha256 | SaslMechanism::ScramSha512 => {
            let hash = if credentials.mechanism == SaslMechanism::ScramSha256 {
                Hash::Sha256
            } else {
                Hash::Sha512
            };
            let mut scram =
                Scram::new(hash, &credentials.username, &credentials.password, nonce()?);
            let server_first = exchange.step(scram.client_first().into_bytes()).await?;
            let server_first = std::str::from_utf8(&server_first)
                .map_err(|_| failed("SCRAM: the server's first message is not UTF-8".into()))?;
            let client_final = scram.client_final(server_first).map_err(failed)?;
            let server_final = exchange.step(client_final.into_bytes()).await?;
            let server_final = std::str::from_utf8(&server_final)
                .map_err(|_| failed("SCRAM: the server's final message is not UTF-8".into()))?;
            scram.verify_server_final(server_final).map_err(failed)?;
        }
    }
    Ok(())
}

/// ApiVersions as Kafka's clients ask it first, with this software's name and version (a
/// v3 request without them is refused as invalid); an error code is an error.
pub async fn api_versions(conn: &mut BrokerConnection) -> io::Result<ApiVersionsResponse> {
    let versions: ApiVersionsResponse = conn
        .call(
            ApiKey::ApiVersions,
            API_VERSIONS_VERSION,
            &ApiVersionsRequest::default()
                .with_client_software_name(StrBytes::from_static_str("ferrolog"))
                .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION"))),
            Duration::ZERO,
        )
        .await?;
    if versions.error_code != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("ApiVersions: error {}", versions.error_code),
        ));
    }
    Ok(versions)
}

/// The SaslAuthenticate round trips of one exchange.
struct Exchange<'a> {
    conn: &'a mut BrokerConnection,
    version: i16,
    credentials: &'a SaslCredentials,
}

impl Exchange<'_> {
    /// Sends one token of the mechanism, returns the server's.
    async fn step(&mut self, token: Vec<u8>) -> io::Result<Bytes> {
        let request = SaslAuthenticateRequest::default().with_auth_bytes(Bytes::from(token));
        let response: SaslAuthenticateResponse = self
            .conn
            .call(
                ApiKey::SaslAuthenticate,
                self.version,
                &request,
                Duration::ZERO,
            )
            .await?;
        if response.error_code != 0 {
            let message = response.error_message.as_deref().unwrap_or("").to_string();
            return Err(failed(format!(
                "{} authentication as {:?} failed: error {} {message}",
                self.credentials.mechanism.name(),
                self.credentials.username,
                response.error_code
            )));
        }
        Ok(response.auth_bytes)
    }
}

/// A fresh client nonce: 24 random bytes from the TLS provider's generator, in base64 (no
/// commas, as RFC 5802 wants).
fn nonce() -> io::Result<String> {
    use base64ct::{Base64, Encoding};
    let mut bytes = [0u8; 24];
    default_provider()
        .secure_random
        .fill(&mut bytes)
        .map_err(|_| io::Error::other("no random bytes for the SCRAM nonce"))?;
    Ok(Base64::encode_string(&bytes))
}
