//! TLS: with a certificate and key the server speaks only TLS; a client trusting the
//! certificate plays, a plain-text client is refused.

use crate::common;

use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use std::path::PathBuf;

use tonic::transport::{Certificate, Channel, ClientTlsConfig};

/// A self-signed certificate for `localhost` and its key, written as `cert.pem` and
/// `key.pem` in `dir`.
fn write_cert(dir: &std::path::Path) -> (rcgen::CertifiedKey<rcgen::KeyPair>, PathBuf, PathBuf) {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    (cert, cert_path, key_path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_tls_with_the_given_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, cert_path, key_path) = write_cert(dir.path());
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        tls: Some((cert_path, key_path)),
        rate_per_sec: 0,
        ..gin_server::Config::default()
    })
    .await;
    let url = format!("https://localhost:{}", server.addr.port());
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(cert.cert.pem()))
        .domain_name("localhost");
    let mut ch = None;
    for _ in 0..50 {
        if let Ok(c) =
            Channel::from_shared(url.clone()).unwrap().tls_config(tls.clone()).unwrap().connect().await
        {
            ch = Some(c);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let ch = ch.expect("TLS connection");
    let (game, players) = new_game(&ch, preset("standard"), 5).await;
    assert_eq!(game.len(), 16);
    assert_ne!(players[0].token, players[1].token);
    let listed =
        LobbyServiceClient::new(ch.clone()).list_games(pb::ListGamesRequest::default()).await.unwrap();
    assert!(listed.into_inner().games.iter().all(|g| g.game_id != game), "a full game is not listed as open");

    // Plain text against the TLS port fails.
    let plain =
        Channel::from_shared(format!("http://127.0.0.1:{}", server.addr.port())).unwrap().connect().await;
    let refused = match plain {
        Err(_) => true,
        Ok(c) => LobbyServiceClient::new(c).list_games(pb::ListGamesRequest::default()).await.is_err(),
    };
    assert!(refused);
    server.stop().await;
}

/// A certificate or key that is not one stops the start with an error (the server does not
/// listen on, refusing every connection).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_key_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let (_, cert_path, key_path) = write_cert(dir.path());
    std::fs::write(&key_path, "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let cfg = gin_server::Config {
        db: dir.path().join("g.db"),
        tls: Some((cert_path, key_path)),
        ..gin_server::Config::default()
    };
    let never = std::future::pending::<()>();
    let ran =
        tokio::time::timeout(std::time::Duration::from_secs(10), gin_server::run(listener, cfg, never)).await;
    let err = ran.expect("run returns at once").expect_err("a bad key is an error");
    assert!(!err.to_string().is_empty());
}
