//! The gRPC `TournamentService`: creating a tournament, entering it (the entrant's stream of
//! assignments), watching it, reading and exporting it.
//!
//!
//! Both streams (an entrant's assignments, a watcher's standings) wait on the tournament's
//! version through `changed`: the tournament changed, the caller left, or the server is
//! shutting down.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::Arc;

use gin_proto::v1 as pb;
use gin_proto::v1::tournament_service_client::TournamentServiceClient;
use gin_proto::v1::tournament_service_server::TournamentService;
use prost::Message;
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::export::{export_csv, export_json};
use super::spec::Spec;
use super::state::{Entrant, Tournament, TournamentCell};
use super::{Tournaments, storage_status};
use crate::game::shared::{QuotaKey, new_id, new_token, now_ms, token_hash};
use crate::storage::{EntrantRow, NewTournament, TournamentWrite};

impl Tournaments {
    /// Creates a tournament for `creator` (its account or address), whose unfinished games its games
    /// count against: so `parallel` may not be more than that limit.
    async fn create(
        &self,
        spec: pb::TournamentSpec,
        creator: Option<QuotaKey>,
    ) -> Result<pb::CreateTournamentResponse, Status> {
        // Text people see, checked here rather than in `Spec::new`: a spec stored before a
        // stricter check must still load at start.
        gin_proto::text::check("spec.name", &spec.name, gin_proto::text::TITLE_MAX)?;
        crate::api::convert::rules_text("spec.rules", spec.rules.as_ref())?;
        let spec = Spec::new(spec)?;
        let limit = self.0.shared.cfg.max_open_games_per_caller;
        if spec.parallel > limit {
            return Err(Status::invalid_argument(format!(
                "spec.parallel: at most {limit} on this server (a tournament's games count against \
                 its creator's limit of unfinished games)"
            )));
        }
        let id = new_id(self.0.shared.cfg.route_tag.as_deref());
        let created = now_ms();
        let blob = spec.pb.encode_to_vec();
        let total = spec.total_games();
        self.store(vec![TournamentWrite::Create(NewTournament {
            id: id.clone(),
            spec: blob,
            created_ms: created,
            status: pb::TournamentStatus::Waiting as i32,
            fixed_deals: spec.fixed,
        })])
        .await
        .map_err(storage_status)?;
        let cell = Arc::new(TournamentCell::new(Tournament::new(id.clone(), spec, creator, created)));
        self.0.map.write().expect("lock").insert(id.clone(), cell);
        self.0.order.lock().expect("lock").push((created, id.clone()));
        tracing::info!(tournament = %id, total, "tournament created");
        Ok(pb::CreateTournamentResponse { tournament_id: id, total_games: total })
    }

    /// Adds an entrant (durably); starts the tournament when it is the last one needed.
    /// Signed in (`account`: its id and name), the entrant is the account: named as it, once
    /// per tournament, its games' seats the account's.
    async fn enter(
        &self,
        cell: &Arc<TournamentCell>,
        name: String,
        account: Option<(String, String)>,
    ) -> Result<(u32, String), Status> {
        let name = name.trim().to_string();
        gin_proto::text::check("name", &name, gin_proto::text::NAME_MAX)?;
        let name = match &account {
            Some((_, account_name)) if !account_name.is_empty() => account_name.clone(),
            _ if name.is_empty() => "entrant".to_string(),
            _ => name,
        };
        let account_id = account.map(|(id, _)| id);
        let token = new_token();
        let hash = token_hash(&token);
        // Reserve the index under the lock, then write; roll back on a storage failure.
        let (idx, tid, starts) = {
            let mut st = cell.state.lock().expect("lock");
            if account_id.is_some() && st.entrants.iter().any(|e| e.account == account_id) {
                return Err(Status::already_exists(
                    "this account has entered this tournament already; re-enter with its entrant_token",
                ));
            }
            if st.status != pb::TournamentStatus::Waiting || st.entrants.len() as u32 >= st.spec.entrants {
                return Err(Status::failed_precondition(
                    "the tournament has all its entrants; re-enter with your entrant_token",
                ));
            }
            st.entrants.push(Entrant { name: name.clone(), token_hash: hash, account: account_id.clone() });
            let idx = st.entrants.len() as u32 - 1;
            let starts = st.entrants.len() as u32 == st.spec.entrants;
            if starts {
                st.status = pb::TournamentStatus::Running;
                st.plan_round(1);
            }
            (idx, st.id.clone(), starts)
        };
        let mut writes = vec![TournamentWrite::Entrant {
            tournament_id: tid.clone(),
            entrant: EntrantRow { idx, name, token_hash: hash, account_id },
        }];
        if starts {
            writes.push(TournamentWrite::Status {
                tournament_id: tid.clone(),
                status: pb::TournamentStatus::Running as i32,
            });
        }
        let stored = self.store(writes).await.map_err(storage_status);
        if let Err(e) = stored {
            let mut st = cell.state.lock().expect("lock");
            st.entrants.truncate(idx as usize);
            st.status = pb::TournamentStatus::Waiting;
            st.planned.clear();
            return Err(e);
        }
        cell.bump();
        if starts {
            tracing::info!(tournament = %tid, "tournament started");
            self.spawn_driver(cell.clone());
        }
        Ok((idx, token))
    }
}

/// Waits until the tournament changes (true), or until its stream ends (false): the caller
/// went away, or the server is shutting down (the caller is then told so, UNAVAILABLE, and
/// what to do: `then`).
async fn changed<T>(
    version: &mut watch::Receiver<u64>,
    tx: &mpsc::Sender<Result<T, Status>>,
    shutdown: &mut watch::Receiver<bool>,
    then: &str,
) -> bool {
    tokio::select! {
        r = version.changed() => r.is_ok(),
        _ = tx.closed() => false,
        _ = async { drop(shutdown.wait_for(|s| *s).await) } => {
            let _ = tx.send(Err(Status::unavailable(format!("the server is shutting down; {then}")))).await;
            false
        }
    }
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

fn tournament_id(id: &str) -> Result<&str, Status> {
    if id.is_empty() || id.len() > 64 {
        return Err(Status::invalid_argument("tournament_id: required, at most 64 characters"));
    }
    Ok(id)
}

/// PERMISSION_DENIED for a call with an account token without the scope `tournament`; else
/// the caller's account id, if signed in.
fn may_enter<T>(req: &Request<T>) -> Result<Option<String>, Status> {
    match req.extensions().get::<crate::accounts::AccountIdentity>() {
        Some(id) if !id.may(crate::accounts::SCOPE_TOURNAMENT) => {
            Err(Status::permission_denied("this token lacks the scope tournament"))
        }
        Some(id) => Ok(Some(id.account_id.clone())),
        None => Ok(None),
    }
}

#[tonic::async_trait]
impl TournamentService for Tournaments {
    async fn create_tournament(
        &self,
        req: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        may_enter(&req)?;
        let creator = crate::api::gate::quota_key(&req);
        let spec = req.into_inner().spec.ok_or_else(|| Status::invalid_argument("spec: required"))?;
        Ok(Response::new(self.create(spec, creator).await?))
    }

    type JoinTournamentStream = BoxStream<pb::JoinTournamentResponse>;

    async fn join_tournament(
        &self,
        req: Request<pb::JoinTournamentRequest>,
    ) -> Result<Response<Self::JoinTournamentStream>, Status> {
        let account = may_enter(&req)?;
        let r = req.into_inner();
        let cell = self.find(tournament_id(&r.tournament_id)?).await?;
        // Signed in: the entrant is the account, named as it.
        let account = account.map(|id| {
            let name = self.0.shared.seat_account(&id).name;
            (id, name)
        });
        let (entrant, token) = if r.entrant_token.is_empty() {
            if cell.state.lock().expect("lock").spec.fixed && !r.accept_fixed_deals {
                return Err(Status::failed_precondition(
                    "this tournament has fixed deals: its creator chose the seed and may know every \
                     hand; enter with accept_fixed_deals if you agree",
                ));
            }
            self.enter(&cell, r.name, account).await?
        } else {
            let hash = token_hash(r.entrant_token.trim());
            let st = cell.state.lock().expect("lock");
            let idx = st
                .entrants
                .iter()
                .position(|e| e.token_hash == hash)
                .ok_or_else(|| Status::unauthenticated("unknown entrant_token for this tournament"))?;
            (idx as u32, r.entrant_token.trim().to_string())
        };
        let (tx, rx) = mpsc::channel(64);
        let mut version = cell.version.subscribe();
        let mut shutdown = self.0.shutdown.subscribe();
        let first = {
            let st = cell.state.lock().expect("lock");
            pb::Entered {
                entrant,
                entrant_token: token,
                joined: st.entrants.len() as u32,
                needed: st.spec.entrants,
            }
        };
        let tours = self.clone();
        tokio::spawn(async move {
            use pb::join_tournament_response::Kind;
            let msg = |k: Kind| Ok(pb::JoinTournamentResponse { kind: Some(k) });
            if tx.send(msg(Kind::Entered(first))).await.is_err() {
                return;
            }
            let mut sent: HashSet<u32> = HashSet::new();
            loop {
                version.borrow_and_update();
                let (assignments, finished) = {
                    let st = cell.state.lock().expect("lock");
                    let game_format = crate::game::wire::format_info(&st.spec.game);
                    let mut v = Vec::new();
                    for g in st.games.iter().filter(|g| !g.done && g.created) {
                        let Some(seat) = g.seats.iter().position(|&x| x == entrant) else { continue };
                        if !sent.insert(g.number) {
                            continue;
                        }
                        let a = pb::Assignment {
                            game_id: g.game_id.clone(),
                            seat: seat as u32,
                            seat_token: g.tokens.get(seat).cloned().flatten().unwrap_or_default(),
                            opponent: g.seats[(seat + 1) % g.seats.len()],
                            round: g.round,
                            game_format: Some(game_format.clone()),
                            entrants: g.seats.clone(),
                        };
                        v.push((g.number, a));
                    }
                    let fin = (st.status == pb::TournamentStatus::Finished).then(|| st.standings());
                    (v, fin)
                };
                for (number, mut a) in assignments {
                    if a.seat_token.is_empty() {
                        // A game from before a restart: its seat gets a new token.
                        match tours.seat_token(&cell, number, &a.game_id, a.seat as usize).await {
                            Ok(t) => a.seat_token = t,
                            Err(e) => {
                                // Over meanwhile (nothing left to play), or the store failed.
                                tracing::info!(game = %a.game_id, "tournament: no new seat token: {e}");
                                continue;
                            }
                        }
                    }
                    if tx.send(msg(Kind::Assignment(a))).await.is_err() {
                        return;
                    }
                }
                if let Some(s) = finished {
                    let _ = tx.send(msg(Kind::Finished(s))).await;
                    return;
                }
                if !changed(&mut version, &tx, &mut shutdown, "re-enter later").await {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    type WatchTournamentStream = BoxStream<pb::WatchTournamentResponse>;

    async fn watch_tournament(
        &self,
        req: Request<pb::WatchTournamentRequest>,
    ) -> Result<Response<Self::WatchTournamentStream>, Status> {
        let cell = self.find(tournament_id(&req.get_ref().tournament_id)?).await?;
        let (tx, rx) = mpsc::channel(16);
        let mut version = cell.version.subscribe();
        let mut shutdown = self.0.shutdown.subscribe();
        tokio::spawn(async move {
            loop {
                version.borrow_and_update();
                let (state, over) = {
                    let st = cell.state.lock().expect("lock");
                    (st.state(false), st.status == pb::TournamentStatus::Finished)
                };
                if tx.send(Ok(pb::WatchTournamentResponse { state: Some(state) })).await.is_err() || over {
                    return;
                }
                if !changed(&mut version, &tx, &mut shutdown, "watch again later").await {
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn get_tournament(
        &self,
        req: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        let cell = self.find(tournament_id(&req.get_ref().tournament_id)?).await?;
        let state = cell.state.lock().expect("lock").state(true);
        Ok(Response::new(pb::GetTournamentResponse { state: Some(state) }))
    }

    async fn list_tournaments(
        &self,
        req: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let limit = match req.get_ref().limit {
            0 => 50,
            n => n.min(1000) as usize,
        };
        let ids: Vec<String> =
            self.0.order.lock().expect("lock").iter().rev().take(limit).map(|(_, id)| id.clone()).collect();
        let mut tournaments: Vec<pb::TournamentState> = ids
            .iter()
            .filter_map(|id| self.cell(id).ok())
            .map(|c| c.state.lock().expect("lock").state(false))
            .collect();
        // In a cluster, asked by a client (not by another server): every server's.
        let s = &self.0.shared;
        if s.cfg.cluster_addr.is_some() && !req.metadata().contains_key(crate::cluster::FORWARDED) {
            let others = self
                .0
                .peers
                .ask_others(&s.store, s.store.member(), |channel, mark| async move {
                    let mut req = Request::new(pb::ListTournamentsRequest { limit: limit as u32 });
                    req.metadata_mut().insert(crate::cluster::FORWARDED, mark);
                    let r = TournamentServiceClient::new(channel).list_tournaments(req).await?;
                    Ok(r.into_inner().tournaments)
                })
                .await;
            tournaments.extend(others.into_iter().flatten());
            tournaments.sort_by_key(|t| std::cmp::Reverse(t.created_unix_ms));
            tournaments.truncate(limit);
        }
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn export_tournament(
        &self,
        req: Request<pb::ExportTournamentRequest>,
    ) -> Result<Response<pb::ExportTournamentResponse>, Status> {
        let r = req.into_inner();
        let cell = self.find(tournament_id(&r.tournament_id)?).await?;
        let format = pb::ExportFormat::try_from(r.format)
            .map_err(|_| Status::invalid_argument("format: unknown value"))?;
        let st = cell.state.lock().expect("lock");
        let state = st.state(true);
        let names: Vec<String> = st.entrants.iter().map(|e| e.name.clone()).collect();
        drop(st);
        let (content, media_type) = match format {
            pb::ExportFormat::Csv => (export_csv(&state, &names), "text/csv"),
            _ => (export_json(&state, &names), "application/json"),
        };
        Ok(Response::new(pb::ExportTournamentResponse { content, media_type: media_type.into() }))
    }
}
