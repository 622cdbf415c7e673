//! A headless Chromium driven through the Chrome DevTools protocol, for the browser tests that
//! fill a form: a minimal WebSocket client (RFC 6455 text frames over a loopback
//! `TcpStream`) and the few commands a person's actions need — open a page, type into a
//! field, choose a file, click, wait for the next page, read the DOM, take a screenshot.
//!
//! Why the DevTools protocol and not WebDriver: it needs only the `chromium` that the other
//! browser tests already use (`.ci/run` installs it), no `chromedriver` of the exact same
//! version beside it, and no new crate (ureq reads `/json/list`, base64 decodes screenshots).
//! Every read has a time limit; the browser runs with its own temporary profile, sends every
//! request but loopback to a closed port, and is killed (by its PID) when dropped.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

/// How long one command or one wait may take.
const PATIENCE: Duration = Duration::from_secs(30);

/// A headless Chromium with one page attached over the DevTools protocol.
pub(crate) struct Browser {
    child: Child,
    socket: TcpStream,
    next_id: u64,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Starts `chromium` headless at `width` × `height` pixels and attaches to its page.
    pub(crate) fn start(chromium: &str, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().expect("a profile folder");
        let mut child = Command::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
            // Every request but loopback (which Chromium never sends to a proxy) to a closed port.
            .args(["--proxy-server=127.0.0.1:9", "--hide-scrollbars"])
            .args(["--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium");
        // Chromium prints `DevTools listening on ws://127.0.0.1:PORT/devtools/browser/…`.
        let stderr = child.stderr.take().expect("stderr");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stderr).lines();
            for line in lines.by_ref().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = sender.send(url.to_owned());
                    break;
                }
            }
            // Keep draining, so that Chromium never blocks on a full pipe.
            for _ in lines {}
        });
        let Ok(browser_url) = receiver.recv_timeout(PATIENCE) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium printed no DevTools address within {PATIENCE:?}");
        };
        let host = browser_url.trim_start_matches("ws://").split('/').next().unwrap_or_default().to_owned();
        let page_url = page_target(&host);
        let socket = connect(&page_url);
        let mut browser = Browser { child, socket, next_id: 0, _profile: profile };
        browser.call("Page.enable", json!({}));
        browser
    }

    /// Sends `method` with `params` and returns its result (events in between are skipped).
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params).unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// [`Browser::call`], a protocol error returned rather than panicking.
    fn try_call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method });
        message["params"] = params;
        send_text(&mut self.socket, &message.to_string());
        let deadline = Instant::now() + PATIENCE;
        loop {
            assert!(Instant::now() < deadline, "{method}: no answer within {PATIENCE:?}");
            let message: Value = serde_json::from_str(&read_message(&mut self.socket)).expect("a JSON message");
            if message["id"].as_u64() == Some(id) {
                if let Some(error) = message.get("error") {
                    return Err(error.to_string());
                }
                return Ok(message["result"].clone());
            }
        }
    }

    /// Evaluates `expression` in the page and returns its value (`Null` while the page is
    /// being replaced).
    pub(crate) fn eval(&mut self, expression: &str) -> Value {
        self.try_call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true }))
            .map_or(Value::Null, |r| r["result"]["value"].clone())
    }

    /// Opens `url` and waits until it is loaded.
    pub(crate) fn open(&mut self, url: &str) {
        self.eval("window.kgevalOld = true");
        self.call("Page.navigate", json!({ "url": url }));
        self.wait_next_page(url);
    }

    /// Waits until the page that replaced the current one has loaded.
    fn wait_next_page(&mut self, what: &str) {
        let deadline = Instant::now() + PATIENCE;
        while self.eval("window.kgevalOld === undefined && document.readyState === 'complete'") != Value::Bool(true) {
            assert!(Instant::now() < deadline, "{what}: no new page within {PATIENCE:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The node id of the first element matching `selector`.
    fn node(&mut self, selector: &str) -> u64 {
        let root = self.call("DOM.getDocument", json!({ "depth": 0 }))["root"]["nodeId"].as_u64().expect("a root");
        let found = self.call("DOM.querySelector", json!({ "nodeId": root, "selector": selector }));
        match found["nodeId"].as_u64() {
            Some(id) if id != 0 => id,
            _ => panic!("no element {selector} on the page:\n{}", self.html()),
        }
    }

    /// Focuses the field `selector` and types `text` into it.
    pub(crate) fn type_into(&mut self, selector: &str, text: &str) {
        let node = self.node(selector);
        self.call("DOM.focus", json!({ "nodeId": node }));
        self.call("Input.insertText", json!({ "text": text }));
    }

    /// Chooses the file `path` in the file field `selector`.
    pub(crate) fn choose_file(&mut self, selector: &str, path: &Path) {
        let node = self.node(selector);
        self.call("DOM.setFileInputFiles", json!({ "nodeId": node, "files": [path.display().to_string()] }));
    }

    /// Clicks the middle of the element `selector` with the mouse and waits for the page it
    /// leads to.
    pub(crate) fn click_and_wait(&mut self, selector: &str) {
        let node = self.node(selector);
        self.call("DOM.scrollIntoViewIfNeeded", json!({ "nodeId": node }));
        let quad = self.call("DOM.getBoxModel", json!({ "nodeId": node }))["model"]["content"].clone();
        let corner = |i: usize| quad[i].as_f64().expect("a coordinate");
        let (x, y) = ((corner(0) + corner(4)) / 2.0, (corner(1) + corner(5)) / 2.0);
        self.eval("window.kgevalOld = true");
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
        self.wait_next_page(selector);
    }

    /// Clicks the link `selector` (the mouse on its middle) as a person saving a download does,
    /// and returns the file the browser saved into `dir` (created; empty before).
    pub(crate) fn download(&mut self, selector: &str, dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir).expect("the download folder");
        self.call(
            "Browser.setDownloadBehavior",
            json!({ "behavior": "allow", "downloadPath": dir.display().to_string() }),
        );
        let node = self.node(selector);
        self.call("DOM.scrollIntoViewIfNeeded", json!({ "nodeId": node }));
        let quad = self.call("DOM.getBoxModel", json!({ "nodeId": node }))["model"]["content"].clone();
        let corner = |i: usize| quad[i].as_f64().expect("a coordinate");
        let (x, y) = ((corner(0) + corner(4)) / 2.0, (corner(1) + corner(5)) / 2.0);
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let files: Vec<PathBuf> =
                std::fs::read_dir(dir).expect("the download folder").map(|e| e.expect("an entry").path()).collect();
            if let [file] = &files[..] {
                if file.extension().is_none_or(|e| e != "crdownload") {
                    return file.clone();
                }
            }
            assert!(Instant::now() < deadline, "{selector}: no download within {PATIENCE:?}: {files:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The page's DOM as HTML.
    pub(crate) fn html(&mut self) -> String {
        self.eval("document.documentElement.outerHTML").as_str().unwrap_or_default().to_owned()
    }

    /// The text of the first element matching `selector`, if any.
    pub(crate) fn text(&mut self, selector: &str) -> Option<String> {
        let selector = serde_json::to_string(selector).expect("a JSON string");
        self.eval(&format!("(document.querySelector({selector}) || {{}}).innerText")).as_str().map(str::to_owned)
    }

    /// A screenshot of the whole page, written as a PNG to `path`.
    pub(crate) fn screenshot(&mut self, path: &Path) {
        let metrics = self.call("Page.getLayoutMetrics", json!({}));
        let size = &metrics["cssContentSize"];
        let clip = json!({
            "x": 0, "y": 0, "scale": 1,
            "width": size["width"].as_f64().unwrap_or(1280.0),
            "height": size["height"].as_f64().unwrap_or(1000.0),
        });
        let shot = self
            .call("Page.captureScreenshot", json!({ "format": "png", "captureBeyondViewport": true, "clip": clip }));
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("image data"))
            .expect("base64 image");
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(path, png).expect("screenshot written");
        eprintln!("screenshot: {}", path.display());
    }

    /// Closes the browser (and waits for it, killing it after the patience).
    pub(crate) fn close(mut self) {
        let _ = self.try_call("Browser.close", json!({}));
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if self.child.try_wait().is_ok_and(|s| s.is_some()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The WebSocket address of the browser's first page (`/json/list` on `host`).
fn page_target(host: &str) -> String {
    let agent = ureq::AgentBuilder::new().timeout(PATIENCE).build();
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Ok(response) = agent.get(&format!("http://{host}/json/list")).call() {
            let targets: Value = serde_json::from_str(&response.into_string().expect("a body")).expect("JSON");
            let page = targets.as_array().and_then(|t| t.iter().find(|t| t["type"] == "page"));
            if let Some(url) = page.and_then(|p| p["webSocketDebuggerUrl"].as_str()) {
                return url.to_owned();
            }
        }
        assert!(Instant::now() < deadline, "chromium listed no page within {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Opens the WebSocket `url` (`ws://HOST:PORT/PATH`): the HTTP upgrade, answered `101`.
fn connect(url: &str) -> TcpStream {
    let rest = url.strip_prefix("ws://").expect("a ws:// address");
    let (host, path) = rest.split_at(rest.find('/').expect("a path"));
    let mut socket = TcpStream::connect(host).expect("connect to chromium");
    socket.set_read_timeout(Some(PATIENCE)).expect("a read timeout");
    write!(
        socket,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .expect("upgrade sent");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        socket.read_exact(&mut byte).expect("the upgrade's answer");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "no WebSocket upgrade: {head}");
    socket
}

/// Sends one masked text frame (a client must mask, RFC 6455 §5.3).
fn send_text(socket: &mut TcpStream, text: &str) {
    let payload = text.as_bytes();
    let mask = [0x6b, 0x67, 0x65, 0x76];
    let mut frame = vec![0x81];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | u8::try_from(n).expect("small")),
        n if n <= usize::from(u16::MAX) => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&u16::try_from(n).expect("16 bits").to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    socket.write_all(&frame).expect("frame sent");
}

/// Reads one whole text message (its fragments joined); answers pings.
fn read_message(socket: &mut TcpStream) -> String {
    let mut message = Vec::new();
    loop {
        let mut head = [0u8; 2];
        socket.read_exact(&mut head).expect("a frame from chromium");
        let (fin, opcode) = (head[0] & 0x80 != 0, head[0] & 0x0f);
        let length = match head[1] & 0x7f {
            126 => {
                let mut n = [0u8; 2];
                socket.read_exact(&mut n).expect("a length");
                u64::from(u16::from_be_bytes(n))
            }
            127 => {
                let mut n = [0u8; 8];
                socket.read_exact(&mut n).expect("a length");
                u64::from_be_bytes(n)
            }
            n => u64::from(n),
        };
        let mut payload = vec![0u8; usize::try_from(length).expect("a frame that fits in memory")];
        socket.read_exact(&mut payload).expect("a frame's payload");
        match opcode {
            0x8 => panic!("chromium closed the DevTools connection"),
            0x9 => {
                // A ping: answer with a masked pong of the same payload.
                let mut pong = vec![0x8a, 0x80 | u8::try_from(payload.len()).unwrap_or(0)];
                pong.extend_from_slice(&[0, 0, 0, 0]);
                pong.extend_from_slice(&payload);
                socket.write_all(&pong).expect("pong sent");
            }
            0xa => {}
            _ => {
                message.extend_from_slice(&payload);
                if fin {
                    return String::from_utf8(message).expect("a UTF-8 message");
                }
            }
        }
    }
}
