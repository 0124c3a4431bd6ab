//! The API layer: gRPC in, the game layer's calls out.
//!
//! - [`lobby`], [`games`], [`accounts`], [`challenges`]: the `gin.v1` services (tournaments have theirs in
//!   `tournament`);
//! - [`convert`]: requests decoded into engine types, errors naming the field;
//! - [`status`]: the one mapping from domain errors to gRPC statuses;
//! - [`gate`]: the tower layer every call passes first: the caller's identity (seat token
//!   or account token) and its rate limit;
//! - [`deadline`]: a call whose handler has not answered in time is `DEADLINE_EXCEEDED`;
//! - [`framing`]: malformed and oversized gRPC frames answered before any handler;
//! - [`forward`]: in a cluster, calls about a game another server holds sent there;
//! - [`web`]: the web page, served to every request that is not gRPC.
//!
//! Nothing here is imported by the layers below (`game`, `storage`).

pub mod accounts;
pub mod challenges;
pub mod convert;
pub mod deadline;
pub mod forward;
pub mod framing;
pub mod games;
pub mod gate;
pub mod ladder;
pub mod lobby;
pub mod ratings;
pub mod session;
pub mod status;
pub mod web;
