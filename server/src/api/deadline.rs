//! The server's own limit on how long a call's handler may take to answer: past it the call
//! is `DEADLINE_EXCEEDED`, as gRPC says (tonic's `Server::timeout` answers `CANCELLED`).
//! Only the answer is timed: a stream, once it has started, runs as long as it is read.
//! A deadline the client sends (`grpc-timeout`) is tonic's to enforce, around this layer.
//!
//!
//! The limit is `--request-timeout-secs`; the answer names it. The layer sits inside the
//! framing check and outside forwarding.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http::{Request, Response};
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};

/// Answers `DEADLINE_EXCEEDED` for a call whose handler has not answered within the limit.
#[derive(Clone, Copy, Debug)]
pub struct DeadlineLayer {
    limit: Duration,
}

impl DeadlineLayer {
    /// Calls get `limit` to answer.
    pub fn new(limit: Duration) -> DeadlineLayer {
        DeadlineLayer { limit }
    }
}

impl<S> Layer<S> for DeadlineLayer {
    type Service = Deadline<S>;

    fn layer(&self, inner: S) -> Deadline<S> {
        Deadline { inner, limit: self.limit }
    }
}

/// The service of [`DeadlineLayer`].
#[derive(Clone, Debug)]
pub struct Deadline<S> {
    inner: S,
    limit: Duration,
}

impl<S, B> Service<Request<B>> for Deadline<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let limit = self.limit;
        let answer = self.inner.call(req);
        Box::pin(async move {
            match tokio::time::timeout(limit, answer).await {
                Ok(answer) => answer,
                Err(_) => Ok(Status::deadline_exceeded(format!(
                    "the server did not answer within {limit:?} (its --request-timeout-secs)"
                ))
                .into_http()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt;

    fn status(r: &Response<Body>) -> Option<&str> {
        r.headers().get("grpc-status").map(|v| v.to_str().unwrap())
    }

    #[tokio::test]
    async fn a_slow_answer_is_deadline_exceeded_and_a_quick_one_goes_through() {
        let slow = tower::service_fn(|wait: Request<u64>| async move {
            tokio::time::sleep(Duration::from_millis(*wait.body())).await;
            Ok::<_, std::convert::Infallible>(Response::new(Body::empty()))
        });
        let svc = DeadlineLayer::new(Duration::from_millis(100)).layer(slow);
        let quick = svc.clone().oneshot(Request::new(5)).await.unwrap();
        assert_eq!(status(&quick), None, "the handler's own answer");
        let late = svc.oneshot(Request::new(10_000)).await.unwrap();
        assert_eq!(status(&late), Some("4"), "DEADLINE_EXCEEDED is 4 (CANCELLED is 1)");
        let message = late.headers().get("grpc-message").unwrap().to_str().unwrap();
        assert!(message.contains("100ms") && message.contains("--request-timeout-secs"), "{message}");
    }
}
