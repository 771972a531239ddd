//! The inter-broker client's surface for the control plane: the SASL credentials it hands
//! the native core, the TLS material its own connections to other brokers use, and a probe
//! that connects exactly as a replica fetcher does.

use std::collections::HashMap;
use std::time::Duration;

use pyo3::exceptions::{PyConnectionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tokio_rustls::rustls::pki_types::PrivateKeyDer;

use super::without_gil;
use crate::client::{BrokerConnection, InterBrokerSecurity, SaslCredentials, SaslMechanism};
use crate::properties::Props;
use crate::server::config::ServerConfig;

/// (mechanism, username, password) from Python.
pub(crate) type SaslTuple = (String, String, String);

pub(crate) fn sasl_credentials(sasl: Option<SaslTuple>) -> PyResult<Option<SaslCredentials>> {
    sasl.map(|(mechanism, username, password)| {
        Ok(SaslCredentials {
            mechanism: SaslMechanism::parse(&mechanism).map_err(PyValueError::new_err)?,
            username,
            password,
        })
    })
    .transpose()
}

fn server_config(
    config: &HashMap<String, String>,
    sasl: Option<SaslTuple>,
) -> PyResult<ServerConfig> {
    let mut parsed = ServerConfig::from_map(config).map_err(PyValueError::new_err)?;
    parsed
        .inter_broker
        .set_sasl(sasl_credentials(sasl)?)
        .map_err(PyValueError::new_err)?;
    Ok(parsed)
}

/// The TLS material of the inter-broker listener, as the native core reads it from the
/// broker's resolved config: (certificate chain, private key, its kind: PKCS8, SEC1 or
/// PKCS1, trusted certificates, whether to check the host name), all DER. None when the
/// listener has no TLS.
type Material<'py> = (
    Vec<Bound<'py, PyBytes>>,
    Bound<'py, PyBytes>,
    &'static str,
    Vec<Bound<'py, PyBytes>>,
    bool,
);

#[pyfunction]
pub(crate) fn inter_broker_tls<'py>(
    py: Python<'py>,
    config: HashMap<String, String>,
) -> PyResult<Option<Material<'py>>> {
    let parsed = server_config(&config, None)?;
    let Some(material) = parsed
        .inter_broker
        .tls_material()
        .map_err(PyValueError::new_err)?
    else {
        return Ok(None);
    };
    let ders = |certs: &[tokio_rustls::rustls::pki_types::CertificateDer<'_>]| {
        certs
            .iter()
            .map(|c| PyBytes::new(py, c))
            .collect::<Vec<_>>()
    };
    let (key, kind) = match &material.key {
        PrivateKeyDer::Pkcs8(k) => (k.secret_pkcs8_der(), "PKCS8"),
        PrivateKeyDer::Sec1(k) => (k.secret_sec1_der(), "SEC1"),
        PrivateKeyDer::Pkcs1(k) => (k.secret_pkcs1_der(), "PKCS1"),
        _ => return Err(PyValueError::new_err("unknown private key kind")),
    };
    Ok(Some((
        ders(&material.chain),
        PyBytes::new(py, key),
        kind,
        ders(&material.trusted),
        material.check_name,
    )))
}

/// Connects to `host:port` as the replica fetchers of a broker whose inter-broker listener is
/// `listener` with security `protocol` connect (TLS from `config`'s `ssl.*` and
/// `listener.name.<listener>.ssl.*` properties, SASL with `inter_broker_sasl`), then asks
/// ApiVersions over the authenticated connection; returns the API keys the other broker
/// offers. Raises ConnectionError with the reason when any step fails.
#[pyfunction]
#[pyo3(signature = (config, listener, protocol, host, port, inter_broker_sasl=None, timeout_ms=10_000))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn probe_broker(
    py: Python<'_>,
    config: HashMap<String, String>,
    listener: &str,
    protocol: &str,
    host: String,
    port: u16,
    inter_broker_sasl: Option<SaslTuple>,
    timeout_ms: u64,
) -> PyResult<Vec<i16>> {
    let mut security = InterBrokerSecurity::read(&mut Props::new(&config), listener, protocol)
        .map_err(PyValueError::new_err)?;
    security
        .set_sasl(sasl_credentials(inter_broker_sasl)?)
        .map_err(PyValueError::new_err)?;
    let timeout = Duration::from_millis(timeout_ms);
    without_gil(py, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let client_id = "ferrolog-probe".to_string();
            let mut conn =
                BrokerConnection::connect(&host, port, client_id, timeout, &security).await?;
            let response = crate::client::sasl::api_versions(&mut conn).await?;
            Ok::<_, std::io::Error>(response.api_keys.iter().map(|k| k.api_key).collect())
        })
    })
    .map_err(|e: std::io::Error| PyConnectionError::new_err(e.to_string()))
}
