//! The connection: reconnecting after a server restart, the token prompt.

use super::*;

#[test]
fn killing_and_restarting_the_server_reconnects_the_page_by_itself() {
    let _t = turn();
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut cfg = serve_config("ic7610", None);
    cfg.listen = SocketAddr::from(([127, 0, 0, 1], port));
    let srv = start_server(cfg.clone(), Tuning::default());
    let addr = srv.addr();
    let page = open(addr, 1280, 800, "dark");
    srv.shutdown();
    page.wait_for("window.rigweb.link === 'offline'", Duration::from_secs(10));
    page.wait_for(
        "!document.getElementById('banner').hidden",
        Duration::from_secs(5),
    );
    let rows = page.eval("window.rigweb.scope.rows").as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let srv = start_server(cfg, Tuning::default());
    page.wait_for("window.rigweb.link === 'online'", Duration::from_secs(20));
    page.wait_for(
        &format!("window.rigweb.scope.rows > {}", rows + 20),
        Duration::from_secs(20),
    );
    page.wait_for(
        "document.getElementById('banner').hidden",
        Duration::from_secs(5),
    );
    // resubscribed: state changes arrive again
    page.click("#modes button[data-mode='LSB']");
    wait_state(addr, "LSB after the reconnect", |s| {
        s["main"]["mode"] == "LSB"
    });
    page.wait_for(
        "window.rigweb.state.main.mode === 'LSB'",
        Duration::from_secs(5),
    );
    srv.shutdown();
}

#[test]
fn with_a_token_the_page_asks_for_it_and_then_works() {
    let _t = turn();
    let token = "s3cret-token/with&odd=chars";
    let srv = start(Some(token));
    let addr = srv.addr();
    let page = Browser::shared().new_page(1280, 800);
    page.navigate(&url(addr));
    page.wait_for(
        "document.getElementById('token-dlg').open",
        Duration::from_secs(10),
    );
    assert_eq!(page.eval("window.rigweb.link"), "auth");
    // a wrong token is refused and asked again
    page.click("#token-input");
    page.type_text("wrong");
    page.key("Enter", "Enter", 13);
    page.wait_for("document.getElementById('token-dlg').open && !document.getElementById('token-error').hidden", Duration::from_secs(10));
    page.click("#token-input");
    page.type_text(token);
    page.key("Enter", "Enter", 13);
    page.wait_for("window.rigweb.link === 'online'", Duration::from_secs(20));
    page.wait_for("window.rigweb.scope.rows > 5", Duration::from_secs(20));
    page.click("#modes button[data-mode='CW']");
    let end = Instant::now() + Duration::from_secs(10);
    while state_with_token(addr, token)["main"]["mode"] != "CW" {
        assert!(
            Instant::now() < end,
            "CW set through the authenticated socket"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // the token stays in the browser: a reload connects without asking
    page.navigate(&url(addr));
    page.wait_for(
        "window.rigweb && window.rigweb.link === 'online'",
        Duration::from_secs(20),
    );
    assert_eq!(
        page.eval("document.getElementById('token-dlg').open"),
        false
    );
    srv.shutdown();
}

#[test]
fn escaping_the_token_prompt_leaves_a_way_back_to_it() {
    let _t = turn();
    let token = "another-token";
    let srv = start(Some(token));
    let page = Browser::shared().new_page(1280, 800);
    page.navigate(&url(srv.addr()));
    page.wait_for(
        "document.getElementById('token-dlg').open",
        Duration::from_secs(10),
    );
    page.key("Escape", "Escape", 27);
    page.wait_for(
        "!document.getElementById('token-dlg').open",
        Duration::from_secs(5),
    );
    // not stuck in "token needed": the banner offers the prompt again
    assert_eq!(page.eval("window.rigweb.link"), "auth");
    let banner = page.wait_for(
        "!document.getElementById('banner').hidden && document.getElementById('banner').textContent",
        Duration::from_secs(5),
    );
    assert!(banner.as_str().unwrap().contains("Enter token"), "{banner}");
    page.click("#banner button");
    page.wait_for(
        "document.getElementById('token-dlg').open && document.activeElement === document.getElementById('token-input')",
        Duration::from_secs(5),
    );
    page.type_text(token);
    page.key("Enter", "Enter", 13);
    page.wait_for("window.rigweb.link === 'online'", Duration::from_secs(20));
    page.wait_for(
        "document.getElementById('banner').hidden",
        Duration::from_secs(5),
    );
    srv.shutdown();
}

#[test]
fn a_server_of_another_protocol_version_gets_the_upgrade_notice() {
    let _t = turn();
    let srv = start(None);
    let page = open(srv.addr(), 1280, 800, "dark");
    assert_eq!(page.eval("document.getElementById('banner').hidden"), true);
    // what a server speaking proto 2 would say on connect
    page.eval("window.rigweb.parts.control.onText({type: 'hello', proto: 2, server: 'rigweb', version: '9.0.0'})");
    let text = page.wait_for(
        "!document.getElementById('banner').hidden && document.getElementById('banner').textContent",
        Duration::from_secs(5),
    );
    assert!(
        text.as_str().unwrap().contains("protocol 1") && text.as_str().unwrap().contains("Reload"),
        "{text}"
    );
    srv.shutdown();
}
