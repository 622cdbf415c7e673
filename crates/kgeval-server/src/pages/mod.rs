//! The web pages: `/` (phases, tasks, each task's public leaderboard), `/tasks/{task}`,
//! `/submit` (a form; its POST scores the file and answers with the submission's page),
//! `/submissions/{id}`, `/login`, `/logout`, `/style.css`. Server-rendered minijinja
//! templates (auto-escaped: every team, system and file name and error line is HTML-escaped),
//! no script, no request to another site; the same checks and leaderboards as the API.
//!
//! **How a browser passes its token.** The upload form has a token field (so a team can upload
//! at once), and `/login` takes the token once; either way a valid token is kept in a cookie,
//! `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's form or link carries it:
//! no cross-site request forgery of an upload) and `Path=/`, until `/logout`. The alternatives
//! are worse: a token in the URL ends up in history, logs and `Referer`s, and a token typed
//! into every form cannot open `/submissions/{id}`, a plain link.
//!
//! **Forms posted from another site.** The cookie does not protect a form that *carries* a
//! token: another site's page could post its own team's token to `/login` or `/submit` and
//! sign the browser in as that team (login forgery; the team's next upload would be the
//! other team's). So every page POST (`/login`, `/logout`, `/submit`) is refused (403) when
//! the browser says it comes from another site: `Sec-Fetch-Site: cross-site` / `same-site`,
//! or an `Origin` whose host is not the request's `Host`. Browsers send them on every form
//! POST; a client that sends neither (curl) is no browser a page could drive.

mod admin;
mod register;

pub use register::REGISTRATIONS_PER_MINUTE;
mod views;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::body::{to_bytes, Body};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use minijinja::Environment;
use serde_json::{json, Value};

use crate::access::board;
use crate::app::App;
use crate::auth::{authenticate, cookie_token, viewer};
use crate::refusal::Refusal;
use crate::store::Team;
use crate::submit::{accept, check, field, form_file};
use crate::{clock, multipart};

/// The cookie that holds a signed-in team's token.
pub const COOKIE: &str = "kgeval_token";

/// How many of a team's latest submissions `/submit` lists (`/api/submissions` has them all).
const OWN_SUBMISSIONS: usize = 100;

/// How long the cookie lasts, in seconds (30 days).
const COOKIE_AGE: u32 = 30 * 86_400;

const TEMPLATES: [(&str, &str); 10] = [
    ("register.html", include_str!("register.html")),
    ("base.html", include_str!("base.html")),
    ("admin.html", include_str!("admin.html")),
    ("board.html", include_str!("board.html")),
    ("index.html", include_str!("index.html")),
    ("task.html", include_str!("task.html")),
    ("submit.html", include_str!("submit.html")),
    ("submission.html", include_str!("submission.html")),
    ("login.html", include_str!("login.html")),
    ("message.html", include_str!("message.html")),
];

const STYLE: &str = include_str!("style.css");

/// The page routes (merged into the API's router, which adds the limits and the CSP).
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(index))
        .route("/style.css", get(style))
        .route("/tasks/{task}", get(task_page))
        .route("/submit", get(submit_page).post(submit_form))
        .route("/submissions/{id}", get(submission_page))
        .route("/login", get(login_page).post(login))
        .route("/admin", get(admin::admin_page))
        .route("/register", get(register::register_page).post(register::register))
        .route("/logout", post(logout))
}

/// The templates, parsed once. Names end in `.html`, so minijinja escapes every value.
fn environment() -> &'static Environment<'static> {
    static ENVIRONMENT: OnceLock<Environment<'static>> = OnceLock::new();
    ENVIRONMENT.get_or_init(|| {
        let mut env = Environment::new();
        for (name, source) in TEMPLATES {
            if let Err(e) = env.add_template(name, source) {
                tracing::error!("template {name}: {e}");
            }
        }
        env
    })
}

/// Renders `name` with `context` plus what every page shows (the title, who is signed in).
fn page(app: &App, viewer: Option<&Team>, code: StatusCode, name: &str, mut context: Value) -> Response {
    if let Value::Object(map) = &mut context {
        map.insert("title".into(), json!(app.campaign.served.title));
        map.insert("team".into(), json!(viewer.map(|t| t.name.as_str())));
        map.insert("organiser".into(), json!(viewer.is_some_and(|t| t.organiser)));
        map.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
        let registration = matches!(app.campaign.registration, crate::config::Registration::Invite { .. });
        map.insert("registration".into(), json!(registration));
        let rehearsal = app.clock.is_rehearsal().then(|| views::utc(app.clock.now()));
        map.insert("rehearsal".into(), json!(rehearsal));
    }
    let rendered = environment().get_template(name).and_then(|t| t.render(&context));
    match rendered {
        Ok(html) => {
            let mut response = (code, html).into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(e) => {
            tracing::error!("page {name}: {e:#}");
            (StatusCode::INTERNAL_SERVER_ERROR, "the page failed to render; the organisers have the log")
                .into_response()
        }
    }
}

/// A refusal as a page.
fn refused(app: &App, viewer: Option<&Team>, refusal: &Refusal, back: &str) -> Response {
    let heading = match refusal.code {
        StatusCode::UNAUTHORIZED => "Not signed in",
        StatusCode::FORBIDDEN if refusal.status == "forbidden" => "Sent from another site",
        StatusCode::FORBIDDEN => "Hidden",
        StatusCode::NOT_FOUND => "Not found",
        StatusCode::PAYLOAD_TOO_LARGE => "Too large",
        StatusCode::TOO_MANY_REQUESTS => "Limit reached",
        StatusCode::BAD_REQUEST => "Bad request",
        StatusCode::UNPROCESSABLE_ENTITY => "Invalid upload",
        StatusCode::REQUEST_TIMEOUT => "Too slow",
        code if code.is_client_error() => "Refused",
        _ => "Server error",
    };
    let context = json!({
        "heading": heading,
        "message": refusal.message,
        "reset": refusal.reset.map(views::utc),
        "back": back,
    });
    let mut response = page(app, viewer, refusal.code, "message.html", context);
    refusal.retry_after(&mut response);
    response
}

/// A refusal as a page, for whoever is looking (the refusals of the router's layers and of
/// axum's extractors, which know no team).
pub fn message(app: &App, refusal: &Refusal) -> Response {
    refused(app, None, refusal, "/")
}

/// `Set-Cookie` keeping `token` (`None`: clearing it).
fn set_cookie(response: &mut Response, token: Option<&str>) {
    let value = match token {
        Some(token) => format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={COOKIE_AGE}"),
        None => format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    };
    if let Ok(value) = HeaderValue::from_str(&value) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}

/// Whether the browser says the request comes from another site (`Sec-Fetch-Site` other than
/// `same-origin` and `none`, or an `Origin` — `null` included — whose host is not `Host`).
fn cross_site(headers: &HeaderMap) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(site) = text("sec-fetch-site") {
        if site != "same-origin" && site != "none" {
            return true;
        }
    }
    let Some(origin) = text("origin") else { return false };
    let host = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://"));
    host.is_none() || host != text("host")
}

/// The page refusing a form posted from another site.
fn forged(app: &App) -> Response {
    let refusal = Refusal::new(
        StatusCode::FORBIDDEN,
        "forbidden",
        "found a form sent from another site, expected one sent from this server's pages",
    );
    refused(app, None, &refusal, "/")
}

/// A `303 See Other` to `to`.
fn see_other(to: &'static str) -> Response {
    (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response()
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8"), (header::CACHE_CONTROL, "max-age=3600")], STYLE)
        .into_response()
}

async fn index(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let viewer = viewer(&app, &headers).await;
    let now = app.clock.now();
    let mut tasks = Vec::new();
    for task in &app.campaign.served.tasks {
        let (board, note) = match board(&app, &task.name, None, viewer.as_ref()).await {
            Ok(board) => (Some(views::board(&task.name, &board)), String::new()),
            Err(refusal) => (None, views::sentence(&refusal.message)),
        };
        tasks.push(json!({
            "name": task.name,
            "id": views::element_id(&task.name),
            "family": task.task.family().name(),
            "primary": task.primary_name(),
            "alias": (task.primary_name() != task.primary).then(|| task.primary.clone()),
            "phases": views::task_phases(&app.campaign, task),
            "board": board,
            "note": note,
        }));
    }
    let context = json!({
        "now": views::utc(now),
        "current": app.campaign.phase_at(now).map(|p| json!({
            "name": p.name,
            "until": views::utc(p.until),
            "left": clock::span(p.until - now),
        })),
        "next": app.campaign.phases.iter().find(|p| p.from > now).map(|p| json!({
            "name": p.name,
            "from": views::utc(p.from),
            "wait": clock::span(p.from - now),
        })),
        "phases": views::phases(&app.campaign, now),
        "tasks": tasks,
    });
    page(&app, viewer.as_ref(), StatusCode::OK, "index.html", context)
}

async fn task_page(
    State(app): State<Arc<App>>,
    Path(task): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let viewer = viewer(&app, &headers).await;
    let Some(served) = app.campaign.served.task(&task) else {
        let refusal = Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no such task");
        return refused(&app, viewer.as_ref(), &refusal, "/");
    };
    let phases: Vec<&str> =
        app.campaign.phases.iter().filter(|p| served.open_in(&p.name)).map(|p| p.name.as_str()).collect();
    let (board, note, shown, code) =
        match board(&app, &task, query.get("phase").map(String::as_str), viewer.as_ref()).await {
            Ok(board) => {
                let shown = board.phase.name.clone();
                (Some(views::board(&task, &board)), String::new(), Some(shown), StatusCode::OK)
            }
            Err(refusal) => (None, views::sentence(&refusal.message), query.get("phase").cloned(), refusal.code),
        };
    let context = json!({
        "task": task,
        "task_id": views::element_id(&task),
        "family": served.task.family().name(),
        "phases": phases,
        "shown": shown,
        "board": board,
        "note": note,
    });
    page(&app, viewer.as_ref(), code, "task.html", context)
}

/// The upload form, and the signed-in team's latest submissions.
async fn submit_page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let viewer = viewer(&app, &headers).await;
    form_page(&app, viewer.as_ref(), StatusCode::OK, None).await
}

async fn form_page(app: &Arc<App>, viewer: Option<&Team>, code: StatusCode, message: Option<&str>) -> Response {
    let now = app.clock.now();
    let open = app.campaign.phase_at(now).map(|p| p.name.clone());
    let tasks: Vec<Value> = app
        .campaign
        .served
        .tasks
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "family": t.task.family().name(),
                "open": open.as_deref().is_some_and(|p| t.open_in(p)),
                "id": views::element_id(&t.name),
                "parts": t.parts(),
            })
        })
        .collect();
    let parted = app.campaign.served.tasks.iter().any(|t| !t.parts().is_empty());
    // The team's own latest submissions, with what their phases' feedback shows, and the
    // uploads it has left.
    let (submissions, left) = match viewer {
        Some(team) => {
            let own = HashMap::from([("team".to_owned(), team.name.clone())]);
            let mut rows = crate::desk::listing(app, team, &own).await.unwrap_or_else(|refusal| {
                tracing::error!("{}", refusal.message);
                Vec::new()
            });
            rows.truncate(OWN_SUBMISSIONS);
            let left = crate::desk::uploads_left(app, team.id).await.unwrap_or_else(|e| {
                tracing::error!("{e}");
                Vec::new()
            });
            (rows, left)
        }
        None => (Vec::new(), Vec::new()),
    };
    let submissions: Vec<Value> = submissions.iter().map(|(s, feedback)| views::desk_row(app, s, *feedback)).collect();
    let left: Vec<Value> = left.iter().map(|l| json!({ "task": l.task, "today": l.today, "total": l.total })).collect();
    let closing = app
        .campaign
        .phase_at(now)
        .map(|p| json!({ "name": p.name, "until": views::utc(p.until), "left": clock::span(p.until - now) }));
    let context = json!({
        "tasks": tasks,
        "message": message,
        "max_upload": crate::units::size(app.campaign.max_upload),
        "left": left,
        "closing": closing,
        "parted": parted,
        "submissions": submissions,
    });
    page(app, viewer, code, "submit.html", context)
}

/// `POST /submit`: the form's token (else the cookie's team), task, system name (`system` or
/// `name`) and file (`file`, or one part per pair named by the pair); the team's request
/// rate, then checked, scored and stored as an API upload; answered with the submission's
/// page (201, 422 with the located error, 500) or the refusal's.
async fn submit_form(State(app): State<Arc<App>>, headers: HeaderMap, body: Body) -> Response {
    if cross_site(&headers) {
        return forged(&app);
    }
    let limit = usize::try_from(app.campaign.max_upload).unwrap_or(usize::MAX).saturating_add(64 << 10);
    // Who is signed in, without taking from the rate: the upload takes one below, once.
    let signed_in = match crate::auth::bearer_team(&app, &headers).await {
        Ok(Some(team)) => Some(team),
        _ => match cookie_token(&headers) {
            Some(token) => authenticate(&app, token).await,
            None => None,
        },
    };
    let bad = |message: String| Refusal::new(StatusCode::BAD_REQUEST, "bad_request", message);
    let Ok(bytes) = to_bytes(body, limit).await else {
        let refusal = Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            crate::refusal::over_the_limit(app.campaign.max_upload),
        );
        return refused(&app, signed_in.as_ref(), &refusal, "/submit");
    };
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let Some(boundary) = multipart::boundary(content_type) else {
        let refusal = bad(format!("found Content-Type {content_type:?}, expected multipart/form-data"));
        return refused(&app, signed_in.as_ref(), &refusal, "/submit");
    };
    let parts = match multipart::parse(&bytes, &boundary) {
        Ok(parts) => parts,
        Err(e) => return refused(&app, signed_in.as_ref(), &bad(e.to_string()), "/submit"),
    };
    let typed = field(&parts, "token");
    let team = match &typed {
        Some(token) => authenticate(&app, token.clone()).await,
        None => signed_in.clone(),
    };
    let Some(team) = team else {
        let message = if typed.is_some() { "found no team with this token" } else { "expected your team's token" };
        return form_page(&app, signed_in.as_ref(), StatusCode::UNAUTHORIZED, Some(message)).await;
    };
    if let Err(refusal) = crate::auth::take_rate(&app, &team) {
        return refused(&app, Some(&team), &refusal, "/submit");
    }
    let Some(task) = field(&parts, "task") else {
        return refused(&app, Some(&team), &bad("expected a task".to_owned()), "/submit");
    };
    let system = field(&parts, "system").or_else(|| field(&parts, "name"));
    let checked = match check(&app, team.clone(), &task, system.as_deref()).await {
        Ok(checked) => checked,
        Err(refusal) => return refused(&app, Some(&team), &refusal, "/submit"),
    };
    let file = match form_file(checked.task(), parts, &["token", "task", "system", "name"]) {
        Ok(file) => file,
        Err(refusal) => return refused(&app, Some(&team), &refusal, "/submit"),
    };
    let mut response = match accept(&app, checked, file).await {
        Ok(accepted) => {
            let context = json!({ "s": views::submission(&app, &accepted.submission, accepted.feedback) });
            page(&app, Some(&team), accepted.code, "submission.html", context)
        }
        Err(refusal) => refused(&app, Some(&team), &refusal, "/submit"),
    };
    if let Some(token) = typed.filter(|_| signed_in.as_ref().is_none_or(|t| t.id != team.id)) {
        set_cookie(&mut response, Some(&token));
    }
    response
}

/// A submission's page, for its team (or an organiser): status, the located error, scores
/// and per-item values as its phase's feedback allows.
async fn submission_page(State(app): State<Arc<App>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let Some(viewer) = viewer(&app, &headers).await else {
        let refusal = Refusal::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "sign in with your team's token to see a submission",
        );
        return refused(&app, None, &refusal, "/login");
    };
    match crate::access::visible_submission(&app, &viewer, &id).await {
        Ok(Some((s, feedback))) => {
            let context = json!({ "s": views::submission(&app, &s, feedback) });
            page(&app, Some(&viewer), StatusCode::OK, "submission.html", context)
        }
        Ok(None) => {
            let not_found =
                Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no submission of yours with this id");
            refused(&app, Some(&viewer), &not_found, "/submit")
        }
        Err(e) => refused(&app, Some(&viewer), &Refusal::internal(&e), "/submit"),
    }
}

async fn login_page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let viewer = viewer(&app, &headers).await;
    page(&app, viewer.as_ref(), StatusCode::OK, "login.html", json!({}))
}

/// `POST /login` (`token=…`): a valid token is kept in the cookie and the browser sent to
/// `/submit`; a wrong one gets the form again with 401; a form from another site 403.
async fn login(State(app): State<Arc<App>>, headers: HeaderMap, Form(form): Form<HashMap<String, String>>) -> Response {
    if cross_site(&headers) {
        return forged(&app);
    }
    let token = form.get("token").map(|t| t.trim().to_owned()).unwrap_or_default();
    match authenticate(&app, token.clone()).await {
        Some(_) => {
            let mut response = see_other("/submit");
            set_cookie(&mut response, Some(&token));
            response
        }
        None => page(
            &app,
            None,
            StatusCode::UNAUTHORIZED,
            "login.html",
            json!({ "message": "found no team with this token" }),
        ),
    }
}

async fn logout(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if cross_site(&headers) {
        return forged(&app);
    }
    let mut response = see_other("/");
    set_cookie(&mut response, None);
    response
}
