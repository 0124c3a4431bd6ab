//! The `GET /metrics` endpoint (`--metrics-addr`): plain HTTP/1.1 on a listener of its own,
//! served with hyper (already under tonic), stopped with the server.
//!
//!
//! Prometheus' text format 0.0.4 on `Config::metrics_addr`, bound first in `run` (an address
//! in use stops the start before anything is opened).

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use http::{Method, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::Metrics;

/// Binds `addr` for the endpoint; the error names the address (a port in use stops the
/// server's start, it does not leave it without its metrics).
pub async fn bind(addr: std::net::SocketAddr) -> anyhow::Result<TcpListener> {
    TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("--metrics-addr {addr}: cannot listen: {e}"))
}

/// Serves `metrics` at `GET /metrics` on `listener` until `stop` completes; connections still
/// open then are dropped (a scrape is one short request).
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>, stop: impl Future<Output = ()>) {
    let mut conns = tokio::task::JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((conn, _)) => {
                    let metrics = metrics.clone();
                    conns.spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            let answer = answer(&metrics, &req);
                            async move { Ok::<_, Infallible>(answer) }
                        });
                        let served = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(conn), service)
                            .await;
                        if let Err(e) = served {
                            tracing::debug!("metrics connection: {e}");
                        }
                    });
                }
                Err(e) => {
                    tracing::warn!("metrics accept: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            },
            // Reap finished connections as they end.
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            _ = &mut stop => break,
        }
    }
    // Dropping the set aborts the connections left.
}

/// The answer to one request: the numbers for `GET /metrics`, 404 for any other path, 405 for
/// any other method.
fn answer(metrics: &Metrics, req: &Request<Incoming>) -> Response<String> {
    let (status, body) = match (req.method(), req.uri().path()) {
        (&Method::GET | &Method::HEAD, "/metrics") => (StatusCode::OK, metrics.encode()),
        (_, "/metrics") => (StatusCode::METHOD_NOT_ALLOWED, "GET /metrics\n".to_owned()),
        _ => (StatusCode::NOT_FOUND, "the metrics are at /metrics\n".to_owned()),
    };
    let content_type = if status == StatusCode::OK {
        prometheus_client::encoding::prometheus_text::CONTENT_TYPE
    } else {
        "text/plain; charset=utf-8"
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static(content_type));
    response
}
