//! The `gin.v1` gRPC API: generated tonic + prost stubs, and the file descriptor set for
//! server reflection. This is the only code generation in the workspace.
//!
//! ```
//! use gin_proto::v1::{Rules, rules};
//! let r = Rules { kind: Some(rules::Kind::Preset("standard".into())) };
//! assert!(matches!(r.kind, Some(rules::Kind::Preset(_))));
//! assert!(!gin_proto::FILE_DESCRIPTOR_SET.is_empty());
//! ```

#![allow(missing_docs)]
#![allow(clippy::all)]

/// Package `gin.v1`: the game API.
pub mod v1 {
    tonic::include_proto!("gin.v1");
}

/// Package `gin.bench.v1`: the bare echo used by the load benchmark.
pub mod bench {
    tonic::include_proto!("gin.bench.v1");
}

/// The encoded `FileDescriptorSet` of every `.proto` here, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/gin_descriptor.bin"));
