//! The gRPC framing of request bodies, checked as the bytes flow in.
//!
//! A gRPC request body is a run of messages, each a 5-byte header (a compression flag, 0 or
//! 1, then the message's length as a big-endian `u32`) and that many bytes. [`FramingLayer`]
//! wraps the body of every gRPC request (gRPC-Web ones too: it sits inside tonic-web's
//! layer, which has turned them into gRPC) in a [`Checked`] body that follows the headers
//! as the frames pass, without buffering or copying them, and ends the body with a status
//! where tonic would answer `INTERNAL` or `OUT_OF_RANGE`:
//!
//! * a header declaring a message over `Config::max_message_bytes`:
//!   `RESOURCE_EXHAUSTED` (what gRPC's own servers answer), at once, before the message
//!   arrives;
//! * a compression flag other than 0 and 1: `INVALID_ARGUMENT`;
//! * a body that ends inside a header or a message: `INVALID_ARGUMENT` (`truncated
//!   request: …`);
//! * for every call that takes one message (all but reflection's stream): a body without
//!   one, or with a second, `INVALID_ARGUMENT`. tonic would answer an empty body `INTERNAL`
//!   and read and decode every message after the first only to drop them (an unbounded body
//!   for a unary call).
//!
//! When a request body fails with a [`Status`], tonic answers the call with that status as it
//! is (`Status::from_error` finds it in the error), and tonic reads the whole body of a call
//! that takes one message before running the call: a request refused here changes nothing.
//! A message that does not decode is the codec's to refuse (`gin_proto::codec`):
//! `INVALID_ARGUMENT` too. The services keep their own `max_decoding_message_size`, the same
//! limit, as a second line. Hand-written: no crate checks gRPC framing as a tower layer
//! (tower-http's body limit counts bytes, not messages).

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, header};
use http_body::{Body as HttpBody, Frame, SizeHint};
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};

/// The length of a message header: the compression flag and a `u32` length.
const HEADER: usize = 5;

/// Checks the framing of every gRPC request body: see the [module](self) doc.
#[derive(Clone, Copy, Debug)]
pub struct FramingLayer {
    max: u32,
}

impl FramingLayer {
    /// Messages of at most `max_message_bytes` pass.
    pub fn new(max_message_bytes: usize) -> FramingLayer {
        FramingLayer { max: u32::try_from(max_message_bytes).unwrap_or(u32::MAX) }
    }
}

impl<S> Layer<S> for FramingLayer {
    type Service = Framing<S>;

    fn layer(&self, inner: S) -> Framing<S> {
        Framing { inner, max: self.max }
    }
}

/// The service of [`FramingLayer`].
#[derive(Clone, Debug)]
pub struct Framing<S> {
    inner: S,
    max: u32,
}

impl<S> Service<Request<Body>> for Framing<S>
where
    S: Service<Request<Checked>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> S::Future {
        let grpc = req
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
        let frames = grpc.then(|| Frames::new(self.max, takes_one_message(req.uri().path())));
        self.inner.call(req.map(|body| Checked { body, frames }))
    }
}

/// Whether the call at `path` takes exactly one request message: every one we serve does
/// (unary and server-streaming calls; health's too), except server reflection's
/// bidirectional stream.
fn takes_one_message(path: &str) -> bool {
    !path.starts_with("/grpc.reflection.")
}

/// A request body whose gRPC framing is checked as its frames pass (a body that is not gRPC
/// passes unchecked).
#[derive(Debug)]
pub struct Checked {
    body: Body,
    /// `None`: not checked (not gRPC, or the check already failed).
    frames: Option<Frames>,
}

impl Checked {
    /// A body read already (and checked as it was read), passed on from memory.
    pub fn buffered(bytes: Bytes) -> Checked {
        Checked { body: Body::new(http_body_util::Full::new(bytes)), frames: None }
    }
}

/// Where the body is in its run of messages.
#[derive(Debug)]
struct Frames {
    /// The largest message allowed.
    max: u32,
    /// The call takes exactly one message.
    one: bool,
    /// Messages whose header was read.
    messages: u32,
    /// The header being read (`have` bytes of it so far).
    header: [u8; HEADER],
    have: usize,
    /// The current message's length, and how many of its bytes are still to come.
    len: u32,
    left: u32,
}

impl Frames {
    fn new(max: u32, one: bool) -> Frames {
        Frames { max, one, messages: 0, header: [0; HEADER], have: 0, len: 0, left: 0 }
    }

    /// Follows `data`, the next bytes of the body.
    fn data(&mut self, mut data: &[u8]) -> Result<(), Status> {
        loop {
            // The rest of the current message (u32 to usize: lossless on the targets we build).
            let skip = data.len().min(self.left as usize);
            self.left -= skip as u32;
            data = &data[skip..];
            if data.is_empty() {
                return Ok(());
            }
            let n = data.len().min(HEADER - self.have);
            self.header[self.have..self.have + n].copy_from_slice(&data[..n]);
            self.have += n;
            data = &data[n..];
            if self.have < HEADER {
                return Ok(());
            }
            self.have = 0;
            self.message()?;
        }
    }

    /// Checks the header just read; the message's bytes come next.
    fn message(&mut self) -> Result<(), Status> {
        let [flag, l0, l1, l2, l3] = self.header;
        if flag > 1 {
            return Err(Status::invalid_argument(format!(
                "malformed request: message header with compression flag {flag} (0 or 1 expected)"
            )));
        }
        if self.one && self.messages > 0 {
            return Err(Status::invalid_argument(
                "malformed request: a second message, for a call that takes one",
            ));
        }
        let len = u32::from_be_bytes([l0, l1, l2, l3]);
        if len > self.max {
            return Err(Status::resource_exhausted(format!(
                "request message of {len} bytes is over the limit of {} bytes",
                self.max
            )));
        }
        self.messages = self.messages.saturating_add(1);
        (self.len, self.left) = (len, len);
        Ok(())
    }

    /// Whether the body may end here.
    fn complete(&self) -> bool {
        self.have == 0 && self.left == 0 && !(self.one && self.messages == 0)
    }

    /// Checks that the body may end here.
    fn end(&self) -> Result<(), Status> {
        if self.complete() {
            return Ok(());
        }
        if self.have > 0 {
            return Err(Status::invalid_argument(format!(
                "truncated request: the body ends inside a message header ({} of {HEADER} bytes received)",
                self.have
            )));
        }
        if self.left > 0 {
            return Err(Status::invalid_argument(format!(
                "truncated request: the body ends inside a message of {} bytes ({} received)",
                self.len,
                self.len - self.left
            )));
        }
        Err(Status::invalid_argument("empty request: the call takes one message, the body has none"))
    }
}

impl HttpBody for Checked {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        let Some(frames) = &mut this.frames else { return polled };
        let checked = match &polled {
            Poll::Pending => return polled,
            Poll::Ready(Some(Ok(frame))) => match frame.data_ref() {
                Some(data) => frames.data(data),
                // Trailers: the messages are over.
                None => frames.end(),
            },
            Poll::Ready(None) => frames.end(),
            Poll::Ready(Some(Err(_))) => Ok(()),
        };
        match checked {
            Ok(()) => polled,
            Err(status) => {
                this.frames = None;
                // Nothing more is read: the call is answered with `status`.
                this.body = Body::empty();
                Poll::Ready(Some(Err(status)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        // A body that may not end here has its error still to give.
        self.body.is_end_stream() && self.frames.as_ref().is_none_or(Frames::complete)
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use tonic::Code;

    use super::*;

    /// `body` fed to a fresh [`Frames`] in the pieces `cuts` make, then its end: the first
    /// status met, or `Ok` and no message.
    fn check(max: u32, one: bool, body: &[u8], cuts: &[usize]) -> (Code, String) {
        let mut f = Frames::new(max, one);
        let mut at = 0;
        let mut fed = Ok(());
        for &cut in cuts.iter().chain([&body.len()]) {
            fed = fed.and_then(|()| f.data(&body[at..cut]));
            at = cut;
        }
        if fed.is_ok() {
            assert_eq!(f.complete(), f.end().is_ok());
        }
        match fed.and_then(|()| f.end()) {
            Ok(()) => (Code::Ok, String::new()),
            Err(s) => (s.code(), s.message().to_string()),
        }
    }

    fn frame(len: u32) -> Vec<u8> {
        let mut b = vec![0];
        b.extend_from_slice(&len.to_be_bytes());
        b.resize(HEADER + len as usize, 7);
        b
    }

    /// The same answer however the body is cut into frames: every cut in one place and in
    /// two places.
    #[test]
    fn every_split_of_a_body_gives_the_same_answer() {
        use Code::{InvalidArgument as Invalid, Ok, ResourceExhausted as Exhausted};
        let two = [frame(3), frame(0)].concat();
        let over = [vec![1], 11u32.to_be_bytes().to_vec(), vec![0; 11]].concat();
        let cases: &[(bool, &[u8], Code, &str)] = &[
            (true, &frame(3), Ok, ""),
            (true, &frame(0), Ok, ""),
            (true, &frame(10), Ok, ""),
            (false, &two, Ok, ""),
            (false, &[], Ok, ""),
            (true, &[], Invalid, "empty request: the call takes one message, the body has none"),
            (true, &two, Invalid, "malformed request: a second message, for a call that takes one"),
            (
                true,
                &frame(3)[..6],
                Invalid,
                "truncated request: the body ends inside a message of 3 bytes (1 received)",
            ),
            (
                false,
                &two[..10],
                Invalid,
                "truncated request: the body ends inside a message header (2 of 5 bytes received)",
            ),
            (true, &over, Exhausted, "request message of 11 bytes is over the limit of 10 bytes"),
            (
                true,
                &[2, 0, 0, 0, 0],
                Invalid,
                "malformed request: message header with compression flag 2 (0 or 1 expected)",
            ),
        ];
        for &(one, body, code, message) in cases {
            let want = (code, message.to_string());
            let n = body.len();
            for i in 0..=n {
                assert_eq!(check(10, one, body, &[i]), want, "{body:?} cut at {i}");
                for j in i..=n {
                    assert_eq!(check(10, one, body, &[i, j]), want, "{body:?} cut at {i}, {j}");
                }
            }
        }
    }
}
