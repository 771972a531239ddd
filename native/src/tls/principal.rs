//! The principal a TLS connection stands for: `User:ANONYMOUS` without a client certificate,
//! else the certificate's subject name as Java writes it, which the listener's
//! `ssl.principal.mapping.rules` (`ssl_principal_mapper`) turn into a principal.

/// The principal of a connection without a client certificate (Kafka's `User:ANONYMOUS`).
pub const ANONYMOUS_PRINCIPAL: &str = "User:ANONYMOUS";

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
}
