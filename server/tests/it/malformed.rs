//! Requests no generated client would send, over real sockets: raw HTTP/2 (and gRPC-Web
//! over HTTP/1.1) with bodies that are not protobuf, are cut short, break the gRPC framing
//! or are over the size limit. Each gets the status that puts the fault where it is
//! (INVALID_ARGUMENT, RESOURCE_EXHAUSTED: never INTERNAL), with a message that says what was
//! wrong, and changes nothing: the server still serves, and no game appears.

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;
use prost::Message;
use tonic::transport::Channel;
use tonic::{Code, Status};

const CREATE: &str = "/gin.v1.LobbyService/CreateGame";
const GET: &str = "/gin.v1.GameService/GetGame";
/// `Config::default().max_message_bytes`, the limit of the servers here.
const MAX: usize = 64 * 1024;

/// One raw HTTP/2 connection to the server.
struct Raw {
    addr: SocketAddr,
    send: h2::client::SendRequest<Bytes>,
}

impl Raw {
    async fn connect(addr: SocketAddr) -> Raw {
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (send, conn) = h2::client::handshake(tcp).await.unwrap();
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Raw { addr, send }
    }

    /// Starts a gRPC call to `path` whose body is `body` (no DATA frame if empty), ended
    /// if `end`. Returns the answer to come and the stream, to send more on.
    async fn start(
        &mut self,
        path: &str,
        body: &[u8],
        end: bool,
    ) -> (h2::client::ResponseFuture, h2::SendStream<Bytes>) {
        let req = http::Request::builder()
            .method("POST")
            .uri(format!("http://{}{path}", self.addr))
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .body(())
            .unwrap();
        let mut send = self.send.clone().ready().await.unwrap();
        let (answer, mut stream) = send.send_request(req, body.is_empty() && end).unwrap();
        if !body.is_empty() {
            stream.send_data(Bytes::copy_from_slice(body), end).unwrap();
        }
        (answer, stream)
    }

    /// The status a call to `path` with the whole `body` is answered with.
    async fn call(&mut self, path: &str, body: &[u8]) -> Status {
        let (answer, _stream) = self.start(path, body, true).await;
        status_of(answer).await
    }
}

/// The gRPC status of an answer: from its headers (trailers-only) or its trailers.
async fn status_of(answer: h2::client::ResponseFuture) -> Status {
    let resp = tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .expect("answered within 10 s")
        .expect("an HTTP/2 response");
    assert_eq!(resp.status(), http::StatusCode::OK);
    if let Some(s) = Status::from_header_map(resp.headers()) {
        return s;
    }
    let mut body = resp.into_body();
    while let Some(data) = body.data().await {
        let data = data.unwrap();
        body.flow_control().release_capacity(data.len()).unwrap();
    }
    let trailers = body.trailers().await.unwrap().expect("trailers");
    Status::from_header_map(&trailers).expect("grpc-status in the trailers")
}

/// `msg` in one uncompressed gRPC frame.
fn frame(msg: &[u8]) -> Vec<u8> {
    let mut b = vec![0];
    b.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    b.extend_from_slice(msg);
    b
}

/// Asserts `s` has `code` and `message`.
#[track_caller]
fn assert_status(s: &Status, code: Code, message: &str) {
    assert_eq!((s.code(), s.message()), (code, message), "{s:?}");
}

/// The answer to a message prost refuses with `e`: its reason, without prost's preamble.
fn malformed(e: prost::DecodeError) -> Status {
    let reason = e.to_string().replace("failed to decode Protobuf message: ", "");
    Status::invalid_argument(format!("malformed message: {reason}"))
}

/// A valid CreateGame succeeds (the server still serves); returns the new game's id.
async fn still_serves(ch: &Channel) -> String {
    let req = pb::CreateGameRequest { name: "ok".into(), ..Default::default() };
    LobbyServiceClient::new(ch.clone())
        .create_game(req)
        .await
        .expect("a valid CreateGame")
        .into_inner()
        .game_id
}

/// The open games are exactly `created`: no refused request made one.
async fn only_games(ch: &Channel, created: &[String]) {
    let listed =
        LobbyServiceClient::new(ch.clone()).list_games(pb::ListGamesRequest::default()).await.unwrap();
    let mut listed: Vec<String> = listed.into_inner().games.into_iter().map(|g| g.game_id).collect();
    let mut created = created.to_vec();
    listed.sort();
    created.sort();
    assert_eq!(listed, created);
}

/// Messages that are not protobuf of the request's type (a string that is not UTF-8, a field
/// of the wrong wire type, a varint of 11 bytes, random bytes) are INVALID_ARGUMENT
/// "malformed message: <prost's reason>", for CreateGame and GetGame (an authenticated
/// service) alike; nothing is created and the server serves on the same connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undecodable_messages_are_invalid_argument() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut raw = Raw::connect(server.addr).await;
    let mut created = Vec::new();

    // Field 4 (CreateGameRequest.name) and field 1 (GetGameRequest.game_id) are strings.
    let s = raw.call(CREATE, &frame(&[0x22, 2, 0xff, 0xfe])).await;
    assert_status(
        &s,
        Code::InvalidArgument,
        "malformed message: CreateGameRequest.name: invalid string value: data is not UTF-8 encoded",
    );
    created.push(still_serves(&ch).await);
    let s = raw.call(GET, &frame(&[0x0a, 3, b'a', 0xc3, 0x28])).await;
    assert_status(
        &s,
        Code::InvalidArgument,
        "malformed message: GetGameRequest.game_id: invalid string value: data is not UTF-8 encoded",
    );
    created.push(still_serves(&ch).await);

    let cases: &[(&[u8], &str)] = &[
        // Field 3 (join, a bool: varint) sent length-delimited.
        (
            &[0x1a, 1, 1],
            "malformed message: CreateGameRequest.join: invalid wire type: LengthDelimited (expected Varint)",
        ),
        // Field 7 (seed, a varint) of 11 bytes.
        (
            &[0x38, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            "malformed message: CreateGameRequest.seed: invalid varint",
        ),
        // A length running past the message's end.
        (&[0x22, 20, b'a'], "malformed message: CreateGameRequest.name: buffer underflow"),
        // Wire type 7 does not exist.
        (&[0x0f], "malformed message: invalid wire type value: 7"),
    ];
    for (msg, want) in cases {
        let s = raw.call(CREATE, &frame(msg)).await;
        assert_status(&s, Code::InvalidArgument, want);
        created.push(still_serves(&ch).await);
    }
    // An unknown field (2), skipped: its varint still has to end.
    let s = raw
        .call(GET, &frame(&[0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))
        .await;
    assert_status(&s, Code::InvalidArgument, "malformed message: invalid varint");

    // Random payloads, those prost refuses (the others could be valid requests).
    let mut rng = Rng(7);
    let mut sent = 0;
    for n in 0..200 {
        let msg: Vec<u8> = (0..1 + n % 60).map(|_| rng.below(256) as u8).collect();
        for path in [CREATE, GET] {
            let err = if path == CREATE {
                pb::CreateGameRequest::decode(&msg[..]).err()
            } else {
                pb::GetGameRequest::decode(&msg[..]).err()
            };
            let Some(err) = err else { continue };
            let s = raw.call(path, &frame(&msg)).await;
            assert_status(&s, Code::InvalidArgument, malformed(err).message());
            sent += 1;
        }
    }
    assert!(sent > 200, "only {sent} random payloads were refused by prost");
    created.push(still_serves(&ch).await);
    only_games(&ch, &created).await;
    server.stop().await;
}

/// Bodies that break the gRPC framing are INVALID_ARGUMENT with what was wrong: cut inside a
/// message or a header, no message at all, a compression flag that does not exist, a
/// second message for a call that takes one. Nothing is created by any of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_framing_is_invalid_argument() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut raw = Raw::connect(server.addr).await;
    let mut created = Vec::new();
    let valid = pb::CreateGameRequest { name: "bad".into(), ..Default::default() }.encode_to_vec();

    // The header says 50 bytes; 10 come.
    let mut body = vec![0, 0, 0, 0, 50];
    body.extend_from_slice(&[0x22, 8, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h']);
    for path in [CREATE, GET] {
        let s = raw.call(path, &body).await;
        assert_status(
            &s,
            Code::InvalidArgument,
            "truncated request: the body ends inside a message of 50 bytes (10 received)",
        );
        created.push(still_serves(&ch).await);
    }
    // The same, the message's bytes in several DATA frames and the end in a frame of its own.
    let (answer, mut stream) = raw.start(CREATE, &body[..3], false).await;
    stream.send_data(Bytes::copy_from_slice(&body[3..8]), false).unwrap();
    stream.send_data(Bytes::copy_from_slice(&body[8..]), false).unwrap();
    stream.send_data(Bytes::new(), true).unwrap();
    let s = status_of(answer).await;
    assert_status(
        &s,
        Code::InvalidArgument,
        "truncated request: the body ends inside a message of 50 bytes (10 received)",
    );

    // 3 bytes of a header.
    let s = raw.call(CREATE, &[0, 0, 0]).await;
    assert_status(
        &s,
        Code::InvalidArgument,
        "truncated request: the body ends inside a message header (3 of 5 bytes received)",
    );
    // A whole message, then a header cut short.
    let mut body = frame(&valid);
    body.extend_from_slice(&[0, 0]);
    let s = raw.call(CREATE, &body).await;
    assert_status(
        &s,
        Code::InvalidArgument,
        "truncated request: the body ends inside a message header (2 of 5 bytes received)",
    );
    created.push(still_serves(&ch).await);

    // No body at all (END_STREAM on the headers), and an empty DATA frame.
    let empty = "empty request: the call takes one message, the body has none";
    for path in [CREATE, GET] {
        let s = raw.call(path, &[]).await;
        assert_status(&s, Code::InvalidArgument, empty);
        let (answer, mut stream) = raw.start(path, &[], false).await;
        stream.send_data(Bytes::new(), true).unwrap();
        assert_status(&status_of(answer).await, Code::InvalidArgument, empty);
    }
    created.push(still_serves(&ch).await);

    // Compression flags other than 0 and 1.
    for flag in [2u8, 7, 0x80, 0xff] {
        let mut body = frame(&valid);
        body[0] = flag;
        let s = raw.call(CREATE, &body).await;
        assert_status(
            &s,
            Code::InvalidArgument,
            &format!("malformed request: message header with compression flag {flag} (0 or 1 expected)"),
        );
    }
    created.push(still_serves(&ch).await);

    // Two valid CreateGame messages in one unary call: refused whole, neither applied.
    let mut body = frame(&valid);
    body.extend_from_slice(&frame(&valid));
    let s = raw.call(CREATE, &body).await;
    assert_status(
        &s,
        Code::InvalidArgument,
        "malformed request: a second message, for a call that takes one",
    );
    // An empty message (a valid, empty GetGameRequest) then another.
    let s = raw.call(GET, &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).await;
    assert_status(
        &s,
        Code::InvalidArgument,
        "malformed request: a second message, for a call that takes one",
    );

    // One valid message in a raw call is served as usual.
    let s = raw.call(CREATE, &frame(&valid)).await;
    assert_eq!(s.code(), Code::Ok, "{s:?}");
    let listed =
        LobbyServiceClient::new(ch.clone()).list_games(pb::ListGamesRequest::default()).await.unwrap();
    let raw_game = listed.into_inner().games.into_iter().map(|g| g.game_id).find(|g| !created.contains(g));
    created.push(raw_game.expect("the game of the valid raw call"));
    only_games(&ch, &created).await;
    server.stop().await;
}

/// A message over `max_message_bytes` is RESOURCE_EXHAUSTED naming its size and the limit,
/// as soon as its header is in (a header that lies, with nothing after it and the stream
/// left open, is answered at once); a message of exactly the limit passes the framing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversize_requests_are_resource_exhausted() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut raw = Raw::connect(server.addr).await;
    let mut created = Vec::new();

    // GetGameRequest { game_id: "x" * n } is n + 4 bytes (tag, 3-byte length).
    let get = |len: usize| pb::GetGameRequest { game_id: "x".repeat(len - 4) }.encode_to_vec();
    assert_eq!(get(MAX).len(), MAX);
    let s = raw.call(GET, &frame(&get(MAX + 1))).await;
    assert_status(
        &s,
        Code::ResourceExhausted,
        "request message of 65537 bytes is over the limit of 65536 bytes",
    );
    created.push(still_serves(&ch).await);
    let s = raw.call(GET, &frame(&get(MAX))).await;
    // A message of exactly the limit is read, decoded and refused by the service.
    assert_status(&s, Code::InvalidArgument, "game_id: required, at most 64 characters");

    let name = pb::CreateGameRequest { name: "x".repeat(MAX), ..Default::default() }.encode_to_vec();
    let s = raw.call(CREATE, &frame(&name)).await;
    assert_status(
        &s,
        Code::ResourceExhausted,
        &format!("request message of {} bytes is over the limit of 65536 bytes", name.len()),
    );
    created.push(still_serves(&ch).await);

    // Headers that lie: the body ends at once, or never (the stream stays open, nothing
    // follows: the answer may not wait for the body).
    for (len, end) in [(u32::MAX, true), (u32::MAX, false), (MAX as u32 + 1, false), (1 << 31, false)] {
        let mut header = vec![0];
        header.extend_from_slice(&len.to_be_bytes());
        let (answer, _stream) = raw.start(CREATE, &header, end).await;
        let s = status_of(answer).await;
        assert_status(
            &s,
            Code::ResourceExhausted,
            &format!("request message of {len} bytes is over the limit of 65536 bytes"),
        );
        created.push(still_serves(&ch).await);
    }
    only_games(&ch, &created).await;
    server.stop().await;
}

/// gRPC-Web (HTTP/1.1, as browsers send it) gets the same answers: a body that is not
/// protobuf, one cut short, one over the limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_malformed_requests() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let oversize = frame(&pb::GetGameRequest { game_id: "x".repeat(MAX) }.encode_to_vec());
    let cases: &[(&str, &[u8], Code, &str)] = &[
        (
            CREATE,
            &frame(&[0x22, 2, 0xff, 0xfe]),
            Code::InvalidArgument,
            "malformed message: CreateGameRequest.name: invalid string value: data is not UTF-8 encoded",
        ),
        (
            CREATE,
            &[0, 0, 0, 0, 50, 0x22, 1],
            Code::InvalidArgument,
            "truncated request: the body ends inside a message of 50 bytes (2 received)",
        ),
        (GET, &[], Code::InvalidArgument, "empty request: the call takes one message, the body has none"),
        (
            GET,
            &oversize,
            Code::ResourceExhausted,
            "request message of 65540 bytes is over the limit of 65536 bytes",
        ),
    ];
    for (path, body, code, message) in cases {
        let mut sock = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        sock.write_all(head.as_bytes()).await.unwrap();
        // The server may answer (and close) before reading all of an oversize body.
        let _ = sock.write_all(body).await;
        let mut resp = Vec::new();
        let _ = sock.read_to_end(&mut resp).await;
        let text = String::from_utf8_lossy(&resp);
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        assert!(text.contains("application/grpc-web"), "{text}");
        let status = grpc_web_status(&text).unwrap_or_else(|| panic!("no grpc-status: {text}"));
        assert_status(&status, *code, message);
        still_serves(&ch).await;
    }
    server.stop().await;
}

/// The status in a gRPC-Web answer over HTTP/1.1: its headers (trailers-only) or the
/// trailers frame at the end of its body.
fn grpc_web_status(text: &str) -> Option<Status> {
    let mut map = http::HeaderMap::new();
    for name in ["grpc-status", "grpc-message"] {
        let Some(at) = text.find(&format!("{name}:")) else { continue };
        let value = text[at + name.len() + 1..].split("\r\n").next()?.trim();
        map.insert(name, value.parse().ok()?);
    }
    Status::from_header_map(&map)
}
