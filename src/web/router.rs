//! The REST route table: each path once, with the handler of each method it takes. A
//! request is answered by its route's handler, `404` when no route has its path, `405`
//! with an `Allow` header derived from the route when the path does not take its method
//! (HEAD is answered as GET). Routes ask for the access token unless marked public.
//!
//! Adding a route is one line of [`ROUTES`]:
//! `Route::at("/api/v1/x").get(|c| x::list(c.app)).post(x::change),` — a handler takes
//! the [`Call`] (the application, the request's headers, URL and JSON body).

use std::io::Read;
use std::sync::Arc;

use serde_json::Value;
use tiny_http::{Method, Request};

use super::bridge_route::{BridgeRequest, bridge};
use super::context::AppCtx;
use super::response::{self, Reply};
use super::routes;
use super::station::StationRoute;

/// A handler: the reply to a call.
pub type Handler = fn(&mut Call<'_>) -> Reply;

/// One path and the handlers of the methods it takes.
pub struct Route {
    /// The path (exact; the query is not part of it).
    pub path: &'static str,
    /// `GET` (and `HEAD`).
    pub get: Option<Handler>,
    /// `POST`.
    pub post: Option<Handler>,
    /// `DELETE`.
    pub delete: Option<Handler>,
    /// Answered without the access token.
    pub public: bool,
}

impl Route {
    /// A path that takes no method yet.
    pub const fn at(path: &'static str) -> Route {
        Route {
            path,
            get: None,
            post: None,
            delete: None,
            public: false,
        }
    }

    /// Answers `GET` and `HEAD` with `h`.
    pub const fn get(mut self, h: Handler) -> Route {
        self.get = Some(h);
        self
    }

    /// Answers `POST` with `h`.
    pub const fn post(mut self, h: Handler) -> Route {
        self.post = Some(h);
        self
    }

    /// Answers `DELETE` with `h`.
    pub const fn delete(mut self, h: Handler) -> Route {
        self.delete = Some(h);
        self
    }

    /// Answered without the access token.
    pub const fn public(mut self) -> Route {
        self.public = true;
        self
    }

    /// The handler of `method`, if the route takes it.
    fn handler(&self, method: &Method) -> Option<Handler> {
        match method {
            Method::Get | Method::Head => self.get,
            Method::Post => self.post,
            Method::Delete => self.delete,
            _ => None,
        }
    }

    /// The methods it takes, for `Allow`.
    pub fn allow(&self) -> Vec<&'static str> {
        let mut allow = Vec::new();
        if self.get.is_some() {
            allow.extend(["GET", "HEAD"]);
        }
        if self.post.is_some() {
            allow.push("POST");
        }
        if self.delete.is_some() {
            allow.push("DELETE");
        }
        allow
    }
}

/// A station-data route's `GET` (`/api/v1/dx/*`, `/api/v1/band-plan/*`, `/api/v1/eibi/*`).
fn station_get(c: &mut Call<'_>, route: StationRoute) -> Reply {
    super::station::answer(c.app, route, c.url(), &Value::Null)
}

/// A station-data route's `POST`, with its JSON body (a `required` one, or optional).
fn station_post(c: &mut Call<'_>, route: StationRoute, required: bool) -> Reply {
    match c.body(required) {
        Ok(body) => super::station::answer(c.app, route, c.url(), &body),
        Err(reply) => reply,
    }
}

/// Every REST route.
pub static ROUTES: &[Route] = &[
    Route::at("/")
        .get(|c| routes::root(c.header("Accept-Encoding")))
        .public(),
    Route::at("/index.html")
        .get(|c| routes::root(c.header("Accept-Encoding")))
        .public(),
    Route::at("/healthz")
        .get(|c| routes::healthz(c.app))
        .public(),
    Route::at("/readyz").get(|c| routes::readyz(c.app)).public(),
    Route::at("/metrics").get(|c| super::metrics_page::reply(c.app)),
    Route::at("/api/v1/info").get(|c| routes::info(c.app)),
    Route::at("/api/v1/state").get(|c| routes::state(c.app, c.header("If-None-Match"))),
    Route::at("/api/v1/capabilities").get(|c| routes::capabilities(c.app)),
    Route::at("/api/v1/commands").get(|c| routes::commands(c.app)),
    Route::at("/api/v1/radio/connect").post(|c| match c.body(false) {
        Ok(_) => routes::connect(c.app),
        Err(reply) => reply,
    }),
    Route::at("/api/v1/radio/disconnect").post(|c| match c.body(false) {
        Ok(_) => routes::disconnect(c.app),
        Err(reply) => reply,
    }),
    Route::at("/api/v1/radio/power").post(|c| match c.body(true) {
        Ok(body) => routes::power(c.app, &body),
        Err(reply) => reply,
    }),
    // a page whose WebSocket was refused asks why: the front door answers a refused
    // Origin with its 403 and reason before any route; an allowed page gets this
    Route::at("/api/v1/origin-check").post(|c| match c.body(false) {
        Ok(_) => response::json(200, &serde_json::json!({"origin": "allowed"})),
        Err(reply) => reply,
    }),
    Route::at("/api/v1/dx/spots").get(|c| station_get(c, StationRoute::DxSpots)),
    Route::at("/api/v1/dx/status").get(|c| station_get(c, StationRoute::DxStatus)),
    Route::at("/api/v1/bridge")
        .get(|c| bridge(c.app, BridgeRequest::Status))
        .post(|c| match c.body(false) {
            Ok(_) => bridge(c.app, BridgeRequest::Start),
            Err(reply) => reply,
        })
        .delete(|c| bridge(c.app, BridgeRequest::Stop)),
    Route::at("/api/v1/band-plan/config")
        .get(|c| station_get(c, StationRoute::BandPlanConfig))
        .post(|c| station_post(c, StationRoute::BandPlanRegion, true)),
    Route::at("/api/v1/band-plan/layers").get(|c| station_get(c, StationRoute::BandPlanLayers)),
    Route::at("/api/v1/band-plan/segments").get(|c| station_get(c, StationRoute::BandPlanSegments)),
    Route::at("/api/v1/eibi/status").get(|c| station_get(c, StationRoute::EibiStatus)),
    Route::at("/api/v1/eibi/stations").get(|c| station_get(c, StationRoute::EibiStations)),
    Route::at("/api/v1/eibi/segments").get(|c| station_get(c, StationRoute::EibiSegments)),
    Route::at("/api/v1/eibi/identify").get(|c| station_get(c, StationRoute::EibiIdentify)),
    Route::at("/api/v1/eibi/bands").get(|c| station_get(c, StationRoute::EibiBands)),
    Route::at("/api/v1/eibi/fetch").post(|c| station_post(c, StationRoute::EibiFetch, false)),
];

/// A request being answered: what a handler reads.
pub struct Call<'a> {
    req: &'a mut Request,
    /// The application.
    pub app: &'a Arc<AppCtx>,
    /// The path, without the query.
    pub path: &'a str,
    max_body: usize,
}

impl Call<'_> {
    /// The value of request header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        super::request_header(self.req, name)
    }

    /// The request's URL: the path and the query.
    pub fn url(&self) -> &str {
        self.req.url()
    }

    /// The JSON body: refused before reading when larger than the limit (413), or of
    /// another content type (415); a `required` body must be present (400). Without a
    /// body, `null`.
    pub fn body(&mut self, required: bool) -> Result<Value, Reply> {
        read_body(self.req, self.max_body, required)
    }
}

/// The reply to `req` (which came through the front door) for `path`.
pub fn dispatch(req: &mut Request, app: &Arc<AppCtx>, path: &str) -> Reply {
    let method = req.method().clone();
    let route = ROUTES.iter().find(|r| r.path == path);
    let guarded = route.map_or(path.starts_with("/api/"), |r| !r.public);
    if guarded
        && !app
            .cfg
            .auth
            .check(super::request_header(req, "Authorization"), None)
    {
        return response::unauthorized();
    }
    let Some(route) = route else {
        return response::not_found(method.as_str(), path);
    };
    let Some(handler) = route.handler(&method) else {
        return response::method_not_allowed(method.as_str(), path, &route.allow());
    };
    let mut call = Call {
        req,
        app,
        path,
        max_body: app.cfg.max_body,
    };
    handler(&mut call)
}

/// Reads a JSON body: refused before reading when larger than `max` (413), or of another
/// content type (415); `required` bodies must be present.
fn read_body(req: &mut Request, max: usize, required: bool) -> Result<Value, Reply> {
    if let Some(len) = req.body_length()
        && len > max
    {
        return Err(response::error(
            413,
            "request_too_large",
            format!("the body is {len} bytes; the limit is {max}"),
        ));
    }
    let has_body = req.body_length().is_some_and(|l| l > 0);
    if !has_body {
        return if required {
            Err(response::error(
                400,
                "invalid_json",
                "a JSON body is required",
            ))
        } else {
            Ok(Value::Null)
        };
    }
    let ctype = super::request_header(req, "Content-Type").unwrap_or("");
    if !ctype.to_ascii_lowercase().starts_with("application/json") {
        return Err(response::error(
            415,
            "unsupported_media_type",
            format!("Content-Type {ctype:?} is not accepted; send application/json"),
        ));
    }
    let mut buf = Vec::new();
    let mut limited = req.as_reader().take(max as u64 + 1);
    if let Err(e) = limited.read_to_end(&mut buf) {
        return Err(response::error(
            400,
            "invalid_json",
            format!("the body could not be read: {e}"),
        ));
    }
    if buf.len() > max {
        return Err(response::error(
            413,
            "request_too_large",
            format!("the body is larger than {max} bytes"),
        ));
    }
    crate::util::strict_json::parse_slice(&buf).map_err(|e| {
        response::error(
            400,
            "invalid_json",
            format!("the body is not valid JSON: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_is_listed_once_and_takes_a_method() {
        for (i, r) in ROUTES.iter().enumerate() {
            assert!(
                ROUTES[i + 1..].iter().all(|o| o.path != r.path),
                "{} is listed twice",
                r.path
            );
            assert!(!r.allow().is_empty(), "{} takes no method", r.path);
            assert!(r.path.starts_with('/') && !r.path.contains('?'));
            // the token guards every API route
            assert!(!r.public || !r.path.starts_with("/api/"), "{}", r.path);
        }
    }

    #[test]
    fn allow_is_derived_from_the_route() {
        let find = |p: &str| ROUTES.iter().find(|r| r.path == p).unwrap();
        assert_eq!(find("/api/v1/state").allow(), ["GET", "HEAD"]);
        assert_eq!(find("/api/v1/radio/power").allow(), ["POST"]);
        assert_eq!(
            find("/api/v1/bridge").allow(),
            ["GET", "HEAD", "POST", "DELETE"]
        );
        let state = find("/api/v1/state");
        assert!(state.handler(&Method::Head).is_some());
        assert!(state.handler(&Method::Put).is_none());
        assert!(state.handler(&Method::Delete).is_none());
    }
}
