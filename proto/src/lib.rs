//! The `gin.v1` gRPC API: generated tonic + prost stubs, and the file descriptor set for
//! server reflection. This is the only code generation in the workspace. Beside them, what
//! the server and every Rust client share about the wire: [`rules`] (rule sets between the
//! engine and the wire), [`convert`] (cards, seats, melds and legal actions between the
//! engine and the wire) and [`text`] (what text people set may hold, and how a client shows
//! a server's text).
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

/// The codec of every generated client and server: prost, with small buffers, and an
/// undecodable message refused as the sender's fault.
///
/// tonic's default codec starts every call's encode and decode buffers at 8 KiB, and a server
/// stream keeps its encode buffer for the stream's life: two watched seats cost 16 KiB per
/// game in buffers alone, for events of a few hundred bytes. These start at 1 KiB and grow
/// as a message needs (a 40 KiB record is still one message).
///
/// A message prost cannot decode (a string that is not UTF-8, a field of the wrong wire
/// type, a varint over 10 bytes, a length past the message's end, bytes that are no
/// protobuf at all) is `INVALID_ARGUMENT` `malformed message: <prost's reason>`, not
/// tonic-prost's `INTERNAL`. A server answers the caller that sent it so: the request is at
/// fault, not the server, and sending it again would fail the same way. A client that
/// receives an undecodable answer gets the same status from its call (ours treat it as
/// final, as they did `INTERNAL`). The framing around the messages (their 5-byte headers,
/// the size limit, a body cut short) is not the codec's: the server checks it in
/// `gin_server::framing`, a client leaves it to tonic.
pub mod codec {
    use std::marker::PhantomData;

    use tonic::Status;
    use tonic::codec::{BufferSettings, Codec as TonicCodec, DecodeBuf, Decoder as TonicDecoder};
    use tonic_prost::{ProstCodec, ProstEncoder};

    /// Initial size of a call's encode and decode buffers.
    pub const BUFFER_BYTES: usize = 1024;
    /// An encoder hands its buffer on once it holds this much (tonic's default).
    pub const YIELD_BYTES: usize = 32 * 1024;

    fn settings() -> BufferSettings {
        BufferSettings::new(BUFFER_BYTES, YIELD_BYTES)
    }

    /// [`ProstCodec`]'s encoder and our [`Decoder`], with [`BUFFER_BYTES`] buffers (the
    /// `codec_path` of the generated code).
    #[derive(Debug, Clone)]
    pub struct Codec<T, U>(PhantomData<(T, U)>);

    impl<T, U> Default for Codec<T, U> {
        fn default() -> Self {
            Codec(PhantomData)
        }
    }

    impl<T, U> TonicCodec for Codec<T, U>
    where
        T: prost::Message + Send + 'static,
        U: prost::Message + Default + Send + 'static,
    {
        type Encode = T;
        type Decode = U;
        type Encoder = ProstEncoder<T>;
        type Decoder = Decoder<U>;

        fn encoder(&mut self) -> Self::Encoder {
            ProstCodec::<T, U>::raw_encoder(settings())
        }

        fn decoder(&mut self) -> Self::Decoder {
            Decoder(PhantomData)
        }
    }

    /// Decodes a `U` with prost; a message that does not decode is [`malformed`].
    #[derive(Debug, Clone)]
    pub struct Decoder<U>(PhantomData<U>);

    impl<U: prost::Message + Default> TonicDecoder for Decoder<U> {
        type Item = U;
        type Error = Status;

        fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
            U::decode(buf).map(Some).map_err(malformed)
        }

        fn buffer_settings(&self) -> BufferSettings {
            settings()
        }
    }

    /// The status of a message that does not decode: `INVALID_ARGUMENT` with prost's reason,
    /// which says where.
    ///
    /// ```
    /// use prost::Message;
    /// let e = gin_proto::v1::GetGameRequest::decode(&[0x0a, 0x01, 0xff][..]).unwrap_err();
    /// let s = gin_proto::codec::malformed(e);
    /// assert_eq!(s.code(), tonic::Code::InvalidArgument);
    /// assert_eq!(
    ///     s.message(),
    ///     "malformed message: GetGameRequest.game_id: invalid string value: data is not UTF-8 encoded"
    /// );
    /// ```
    pub fn malformed(e: prost::DecodeError) -> Status {
        let reason = e.to_string();
        let reason = reason.strip_prefix("failed to decode Protobuf message: ").unwrap_or(&reason);
        Status::invalid_argument(format!("malformed message: {reason}"))
    }
}

pub mod convert;
pub mod text;

/// The encoded `FileDescriptorSet` of every `.proto` here, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/gin_descriptor.bin"));

/// Rule sets between the engine and the wire: one conversion for the server and every Rust
/// client.
pub mod rules {
    use engine::{RuleSet, RuleSetError, Shutout, TargetRule};

    use crate::v1 as pb;

    fn unknown(field: &str) -> RuleSetError {
        RuleSetError { field: field.into(), message: "unknown value".into() }
    }

    /// A rule set from the wire, validated (errors name the field). An empty name becomes
    /// "custom".
    ///
    /// ```
    /// let r = engine::RuleSet::preset("oklahoma").unwrap();
    /// assert_eq!(gin_proto::rules::from_pb(&gin_proto::rules::to_pb(&r)).unwrap(), r);
    /// ```
    pub fn from_pb(c: &pb::RuleSet) -> Result<RuleSet, RuleSetError> {
        let r = RuleSet {
            name: if c.name.is_empty() { "custom".into() } else { c.name.clone() },
            gin_bonus: c.gin_bonus,
            big_gin: c.big_gin,
            big_gin_bonus: c.big_gin_bonus,
            undercut_bonus: c.undercut_bonus,
            upcard_offer: c.upcard_offer,
            knock_limit: c.knock_limit,
            knock_limit_from_upcard: c.knock_limit_from_upcard,
            spade_upcard_doubles: c.spade_upcard_doubles,
            target: c.target,
            target_rule: match pb::TargetRule::try_from(c.target_rule) {
                Ok(pb::TargetRule::MoreThan) => TargetRule::MoreThan,
                Ok(_) => TargetRule::AtLeast,
                Err(_) => return Err(unknown("target_rule")),
            },
            game_bonus: c.game_bonus,
            box_bonus: c.box_bonus,
            shutout: match pb::Shutout::try_from(c.shutout) {
                Ok(pb::Shutout::DoubleHandPoints) => Shutout::DoubleHandPoints,
                Ok(pb::Shutout::ReplaceGameBonus) => Shutout::ReplaceGameBonus,
                Ok(pb::Shutout::ExtraBonus) => Shutout::ExtraBonus,
                Ok(_) => Shutout::None,
                Err(_) => return Err(unknown("shutout")),
            },
            shutout_bonus: c.shutout_bonus,
            stages: c.stages,
            // 0 (a client that predates the limits, or leaves them out): the default.
            max_turns_per_hand: match c.max_turns_per_hand {
                0 => engine::DEFAULT_MAX_TURNS_PER_HAND,
                n => n,
            },
            max_hands_per_game: match c.max_hands_per_game {
                0 => engine::DEFAULT_MAX_HANDS_PER_GAME,
                n => n,
            },
        };
        r.validate()?;
        Ok(r)
    }

    /// A rule set for the wire.
    pub fn to_pb(r: &RuleSet) -> pb::RuleSet {
        pb::RuleSet {
            name: r.name.clone(),
            gin_bonus: r.gin_bonus,
            big_gin: r.big_gin,
            big_gin_bonus: r.big_gin_bonus,
            undercut_bonus: r.undercut_bonus,
            upcard_offer: r.upcard_offer,
            knock_limit: r.knock_limit,
            knock_limit_from_upcard: r.knock_limit_from_upcard,
            spade_upcard_doubles: r.spade_upcard_doubles,
            target: r.target,
            target_rule: match r.target_rule {
                TargetRule::AtLeast => pb::TargetRule::AtLeast,
                TargetRule::MoreThan => pb::TargetRule::MoreThan,
            } as i32,
            game_bonus: r.game_bonus,
            box_bonus: r.box_bonus,
            shutout: match r.shutout {
                Shutout::None => pb::Shutout::None,
                Shutout::DoubleHandPoints => pb::Shutout::DoubleHandPoints,
                Shutout::ReplaceGameBonus => pb::Shutout::ReplaceGameBonus,
                Shutout::ExtraBonus => pb::Shutout::ExtraBonus,
            } as i32,
            shutout_bonus: r.shutout_bonus,
            stages: r.stages,
            max_turns_per_hand: r.max_turns_per_hand,
            max_hands_per_game: r.max_hands_per_game,
        }
    }
}
