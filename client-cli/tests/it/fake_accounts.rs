//! A stand-in `AccountService` on a loopback socket, keeping what it was sent, for the
//! account commands' tests: the real `gin` binary talks to it over gRPC as to a server, and
//! the test checks both what `gin` printed and kept and what the service received (the
//! bearer, the password, the scopes). The real server's service is tested with it in
//! `accounts_e2e`. (gin-bot's tests include this file too.)
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use gin_proto::v1 as pb;
use gin_proto::v1::account_service_server::{AccountService, AccountServiceServer};
use tokio::net::TcpListener;
use tonic::{Request, Response, Status};

/// What the service holds and saw.
#[derive(Default)]
pub struct State {
    /// By name: kind and password.
    pub accounts: HashMap<String, (pb::AccountKind, String)>,
    /// Live tokens and their account.
    pub tokens: HashMap<String, String>,
    /// Session tokens (from SignIn).
    pub sessions: HashSet<String>,
    /// Tokens signed out or revoked.
    pub revoked: HashSet<String>,
    /// Every call's name and bearer (empty: none).
    pub calls: Vec<(&'static str, String)>,
    /// The games `ListPlayerGames` answers with, and the names it was asked for.
    pub games: Vec<pb::PlayerGame>,
    pub games_asked: Vec<(String, u32, String)>,
    /// The scopes of the tokens created.
    pub created_scopes: Vec<Vec<i32>>,
    next: u32,
}

/// The stand-in service.
#[derive(Clone, Default)]
pub struct Fake {
    pub state: Arc<Mutex<State>>,
}

fn bearer<T>(r: &Request<T>) -> String {
    r.metadata()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_string()
}

fn account(name: &str, kind: pb::AccountKind, password: &str) -> pb::Account {
    pb::Account {
        name: name.into(),
        kind: kind as i32,
        created_unix_ms: 1,
        has_password: !password.is_empty(),
    }
}

impl Fake {
    /// Serves on 127.0.0.1:0; the URL.
    pub async fn start(&self) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let svc = AccountServiceServer::new(self.clone());
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(svc)
                .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
        );
        format!("http://{addr}")
    }

    /// The caller's account, by its bearer.
    fn who(&self, what: &'static str, bearer: String) -> Result<(String, String), Status> {
        let mut s = self.state.lock().unwrap();
        s.calls.push((what, bearer.clone()));
        match s.tokens.get(&bearer) {
            Some(name) => Ok((name.clone(), bearer)),
            None => Err(Status::unauthenticated("unknown or revoked token")),
        }
    }

    fn new_token(s: &mut State, name: &str) -> String {
        s.next += 1;
        let t = format!("gin_at_fake{}", s.next);
        s.tokens.insert(t.clone(), name.to_string());
        t
    }

    fn token_info(id: &str) -> pb::TokenInfo {
        pb::TokenInfo { id: id.into(), label: "gin".into(), scopes: vec![1, 2, 3], ..Default::default() }
    }
}

#[tonic::async_trait]
impl AccountService for Fake {
    async fn register(
        &self,
        r: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterResponse>, Status> {
        let b = bearer(&r);
        let q = r.into_inner();
        let mut s = self.state.lock().unwrap();
        s.calls.push(("Register", b));
        if s.accounts.keys().any(|n| n.eq_ignore_ascii_case(&q.name)) {
            return Err(Status::already_exists(format!("the name {} is taken", q.name)));
        }
        let kind = pb::AccountKind::try_from(q.kind).unwrap_or_default();
        s.accounts.insert(q.name.clone(), (kind, q.password.clone()));
        let token = Fake::new_token(&mut s, &q.name);
        Ok(Response::new(pb::RegisterResponse {
            account: Some(account(&q.name, kind, &q.password)),
            token,
            token_info: Some(Fake::token_info("t1")),
        }))
    }

    async fn sign_in(&self, r: Request<pb::SignInRequest>) -> Result<Response<pb::SignInResponse>, Status> {
        let b = bearer(&r);
        let q = r.into_inner();
        let mut s = self.state.lock().unwrap();
        s.calls.push(("SignIn", b));
        let Some((kind, pw)) = s.accounts.get(&q.name).cloned() else {
            return Err(Status::unauthenticated("wrong name or password"));
        };
        if pw.is_empty() || pw != q.password {
            return Err(Status::unauthenticated("wrong name or password"));
        }
        let token = Fake::new_token(&mut s, &q.name);
        s.sessions.insert(token.clone());
        Ok(Response::new(pb::SignInResponse {
            account: Some(account(&q.name, kind, &pw)),
            token,
            token_info: Some(Fake::token_info("t2")),
        }))
    }

    async fn sign_out(
        &self,
        r: Request<pb::SignOutRequest>,
    ) -> Result<Response<pb::SignOutResponse>, Status> {
        let (_, token) = self.who("SignOut", bearer(&r))?;
        let mut s = self.state.lock().unwrap();
        s.tokens.remove(&token);
        s.revoked.insert(token);
        Ok(Response::new(pb::SignOutResponse {}))
    }

    async fn who_am_i(&self, r: Request<pb::WhoAmIRequest>) -> Result<Response<pb::WhoAmIResponse>, Status> {
        let (name, token) = self.who("WhoAmI", bearer(&r))?;
        let s = self.state.lock().unwrap();
        let (kind, pw) = s.accounts[&name].clone();
        let session = s.sessions.contains(&token);
        Ok(Response::new(pb::WhoAmIResponse {
            account: Some(account(&name, kind, &pw)),
            token: Some(pb::TokenInfo { session, ..Fake::token_info("t1") }),
        }))
    }

    async fn set_password(
        &self,
        r: Request<pb::SetPasswordRequest>,
    ) -> Result<Response<pb::SetPasswordResponse>, Status> {
        let (name, _) = self.who("SetPassword", bearer(&r))?;
        let q = r.into_inner();
        let mut s = self.state.lock().unwrap();
        let (kind, pw) = s.accounts[&name].clone();
        if pw != q.current_password {
            return Err(Status::permission_denied("the current password does not match"));
        }
        s.accounts.insert(name.clone(), (kind, q.new_password));
        let token = Fake::new_token(&mut s, &name);
        Ok(Response::new(pb::SetPasswordResponse { token, token_info: Some(Fake::token_info("t3")) }))
    }

    async fn create_token(
        &self,
        r: Request<pb::CreateTokenRequest>,
    ) -> Result<Response<pb::CreateTokenResponse>, Status> {
        let (name, _) = self.who("CreateToken", bearer(&r))?;
        let q = r.into_inner();
        let mut s = self.state.lock().unwrap();
        s.created_scopes.push(q.scopes.clone());
        let token = Fake::new_token(&mut s, &name);
        Ok(Response::new(pb::CreateTokenResponse { token, token_info: Some(Fake::token_info("t4")) }))
    }

    async fn list_tokens(
        &self,
        r: Request<pb::ListTokensRequest>,
    ) -> Result<Response<pb::ListTokensResponse>, Status> {
        self.who("ListTokens", bearer(&r))?;
        Ok(Response::new(pb::ListTokensResponse { tokens: vec![Fake::token_info("t1")] }))
    }

    async fn revoke_token(
        &self,
        r: Request<pb::RevokeTokenRequest>,
    ) -> Result<Response<pb::RevokeTokenResponse>, Status> {
        self.who("RevokeToken", bearer(&r))?;
        let id = r.into_inner().id;
        Ok(Response::new(pb::RevokeTokenResponse {
            token_info: Some(pb::TokenInfo { revoked_unix_ms: 2, ..Fake::token_info(&id) }),
        }))
    }

    async fn export_account(
        &self,
        r: Request<pb::ExportAccountRequest>,
    ) -> Result<Response<pb::ExportAccountResponse>, Status> {
        let (name, _) = self.who("ExportAccount", bearer(&r))?;
        Ok(Response::new(pb::ExportAccountResponse {
            json: format!("{{\"account\":{{\"name\":\"{name}\"}}}}"),
        }))
    }

    async fn delete_account(
        &self,
        r: Request<pb::DeleteAccountRequest>,
    ) -> Result<Response<pb::DeleteAccountResponse>, Status> {
        let (name, _) = self.who("DeleteAccount", bearer(&r))?;
        let q = r.into_inner();
        let mut s = self.state.lock().unwrap();
        if q.confirm_name != name || s.accounts[&name].1 != q.password {
            return Err(Status::permission_denied("name or password"));
        }
        s.accounts.remove(&name);
        s.tokens.retain(|_, n| *n != name);
        Ok(Response::new(pb::DeleteAccountResponse {}))
    }

    async fn get_account(
        &self,
        _r: Request<pb::GetAccountRequest>,
    ) -> Result<Response<pb::GetAccountResponse>, Status> {
        Err(Status::unimplemented("not in the fake"))
    }

    async fn list_player_games(
        &self,
        r: Request<pb::ListPlayerGamesRequest>,
    ) -> Result<Response<pb::ListPlayerGamesResponse>, Status> {
        let b = bearer(&r);
        let q = r.into_inner();
        let mut s = self.state.lock().unwrap();
        s.calls.push(("ListPlayerGames", b.clone()));
        s.games_asked.push((q.name.clone(), q.page_size, q.page_token.clone()));
        let name = if q.name.is_empty() {
            s.tokens.get(&b).cloned().ok_or_else(|| Status::unauthenticated("sign in, or name an account"))?
        } else {
            q.name
        };
        let Some((kind, _)) = s.accounts.get(&name).cloned() else {
            return Err(Status::not_found(format!("no account {name}")));
        };
        Ok(Response::new(pb::ListPlayerGamesResponse {
            account: Some(account(&name, kind, "")),
            games: s.games.clone(),
            next_page_token: if q.page_token.is_empty() { "p2".into() } else { String::new() },
        }))
    }
}
