//! gin-strategies' integration tests, one binary (one link) for all: the built-in strategies'
//! legality and self-play properties, and the strong strategy's decisions.

mod learned;
mod strategies;
mod strong;
mod styles;
mod tables;
