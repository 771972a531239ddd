//! The client of SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka's
//! `ScramSaslClient` speaks it: no channel binding (`n,,`), the username escaped as RFC 5802
//! saslname, and the server's signature checked before the exchange counts as done.

use base64ct::{Base64, Encoding};
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256, Sha512};

/// Kafka's least iteration count (`ScramMechanism.minIterations`): a server asking for fewer
/// is not one a broker should trust with its password's hash.
const MIN_ITERATIONS: u32 = 4096;
/// More than any real server asks for, and small enough that a hostile one cannot keep a
/// fetcher busy hashing for long.
const MAX_ITERATIONS: u32 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hash {
    Sha256,
    Sha512,
}

impl Hash {
    fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => {
                let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("any key");
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
            Hash::Sha512 => {
                let mut mac = <Hmac<Sha512> as KeyInit>::new_from_slice(key).expect("any key");
                mac.update(data);
                mac.finalize().into_bytes().to_vec()
            }
        }
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => Sha256::digest(data).to_vec(),
            Hash::Sha512 => Sha512::digest(data).to_vec(),
        }
    }

    fn salted_password(self, password: &[u8], salt: &[u8], iterations: u32) -> Vec<u8> {
        match self {
            Hash::Sha256 => {
                let mut out = vec![0; 32];
                pbkdf2::pbkdf2_hmac::<Sha256>(password, salt, iterations, &mut out);
                out
            }
            Hash::Sha512 => {
                let mut out = vec![0; 64];
                pbkdf2::pbkdf2_hmac::<Sha512>(password, salt, iterations, &mut out);
                out
            }
        }
    }
}

/// One SCRAM exchange: [`Scram::client_first`], then [`Scram::client_final`] with the
/// server's first message, then [`Scram::verify_server_final`].
pub struct Scram {
    hash: Hash,
    password: String,
    nonce: String,
    client_first_bare: String,
    /// The server's signature expected in its final message, once the proof is sent.
    server_signature: Option<Vec<u8>>,
}

fn invalid(why: impl Into<String>) -> String {
    format!("SCRAM: {}", why.into())
}

impl Scram {
    /// `nonce`: printable, without commas (the caller draws it at random).
    pub fn new(hash: Hash, username: &str, password: &str, nonce: String) -> Scram {
        // RFC 5802 saslname: '=' and ',' are escaped.
        let name = username.replace('=', "=3D").replace(',', "=2C");
        Scram {
            hash,
            password: password.to_string(),
            client_first_bare: format!("n={name},r={nonce}"),
            nonce,
            server_signature: None,
        }
    }

    pub fn client_first(&self) -> String {
        format!("n,,{}", self.client_first_bare)
    }

    /// The client's final message (with its proof) for the server's first message.
    pub fn client_final(&mut self, server_first: &str) -> Result<String, String> {
        let mut nonce = None;
        let mut salt = None;
        let mut iterations = None;
        for attribute in server_first.split(',') {
            match attribute.split_once('=') {
                Some(("r", v)) => nonce = Some(v),
                Some(("s", v)) => salt = Some(v),
                Some(("i", v)) => iterations = Some(v),
                Some(("m", _)) => return Err(invalid("the server asks for an extension")),
                _ => {}
            }
        }
        let nonce = nonce.ok_or_else(|| invalid("no nonce from the server"))?;
        if !nonce.starts_with(&self.nonce) || nonce.len() == self.nonce.len() {
            return Err(invalid("the server's nonce does not extend ours"));
        }
        let salt = Base64::decode_vec(salt.ok_or_else(|| invalid("no salt"))?)
            .map_err(|_| invalid("the salt is not base64"))?;
        let iterations: u32 = iterations
            .and_then(|i| i.parse().ok())
            .ok_or_else(|| invalid("no iteration count"))?;
        if !(MIN_ITERATIONS..=MAX_ITERATIONS).contains(&iterations) {
            return Err(invalid(format!("iteration count {iterations}")));
        }
        let h = self.hash;
        let salted = h.salted_password(self.password.as_bytes(), &salt, iterations);
        let client_key = h.hmac(&salted, b"Client Key");
        let stored_key = h.digest(&client_key);
        // "biws": base64 of the GS2 header "n,,".
        let without_proof = format!("c=biws,r={nonce}");
        let auth_message = format!("{},{server_first},{without_proof}", self.client_first_bare);
        let signature = h.hmac(&stored_key, auth_message.as_bytes());
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&signature)
            .map(|(k, s)| k ^ s)
            .collect();
        let server_key = h.hmac(&salted, b"Server Key");
        self.server_signature = Some(h.hmac(&server_key, auth_message.as_bytes()));
        Ok(format!(
            "{without_proof},p={}",
            Base64::encode_string(&proof)
        ))
    }

    /// Checks the server's final message: it must prove the server knows our credential.
    pub fn verify_server_final(&self, server_final: &str) -> Result<(), String> {
        let expected = self
            .server_signature
            .as_ref()
            .ok_or_else(|| invalid("final message before the proof"))?;
        if let Some(error) = server_final.strip_prefix("e=") {
            return Err(invalid(format!("the server refused: {error}")));
        }
        let signature = server_final
            .split(',')
            .find_map(|a| a.strip_prefix("v="))
            .ok_or_else(|| invalid("no server signature"))?;
        let signature =
            Base64::decode_vec(signature).map_err(|_| invalid("the signature is not base64"))?;
        // Not secret (the exchange is over either way), so a plain comparison will do.
        if &signature != expected {
            return Err(invalid("the server's signature is wrong"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677's example exchange (section 3).
    #[test]
    fn rfc_7677_example() {
        let mut scram = Scram::new(
            Hash::Sha256,
            "user",
            "pencil",
            "rOprNGfwEbeRWgbNEkqO".into(),
        );
        assert_eq!(scram.client_first(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first =
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assert_eq!(
            scram.client_final(server_first).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
             p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        scram
            .verify_server_final("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap();
        assert!(scram
            .verify_server_final("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .is_err());
        assert!(scram.verify_server_final("e=invalid-proof").is_err());
    }

    #[test]
    fn refuses_a_foreign_nonce_and_weak_iterations() {
        let mut scram = Scram::new(Hash::Sha512, "a,b=c", "p", "abc".into());
        assert_eq!(scram.client_first(), "n,,n=a=2Cb=3Dc,r=abc");
        assert!(scram.client_final("r=xyz1,s=AAAA,i=4096").is_err());
        assert!(scram.client_final("r=abc,s=AAAA,i=4096").is_err());
        assert!(scram.client_final("r=abc1,s=AAAA,i=4095").is_err());
        assert!(scram.client_final("r=abc1,s=AAAA,i=4096").is_ok());
    }
}
