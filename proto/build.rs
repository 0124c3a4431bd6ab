//! Compiles `gin/v1/*.proto` with protox (pure Rust: no system `protoc`) and generates the
//! tonic + prost stubs once, for every crate of the workspace.

use std::path::PathBuf;

use prost::Message;

const PROTOS: &[&str] = &[
    "gin/v1/types.proto",
    "gin/v1/game.proto",
    "gin/v1/lobby.proto",
    "gin/v1/tournament.proto",
    "gin/v1/account.proto",
    "gin/v1/rating.proto",
    "gin/v1/challenge.proto",
    "gin/v1/ladder.proto",
    "gin/bench/v1/echo.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for p in PROTOS {
        println!("cargo:rerun-if-changed={p}");
    }
    let fds = protox::compile(PROTOS, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("gin_descriptor.bin"), fds.encode_to_vec())?;
    // Small per-call buffers: see `codec` in src/lib.rs.
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .codec_path("crate::codec::Codec")
        .compile_fds(fds)?;
    Ok(())
}
