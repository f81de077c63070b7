//! A real `nats-server -js` for the stream tests: on a free 127.0.0.1 port, with a temporary store directory,
//! killed on drop. [`NatsServer::stop`] and [`NatsServer::restart`] keep the port and the store, as an operator
//! restarting the server would.
//!
//! The port is picked by the server itself (`-p -1`) and read from its log line `Listening for client
//! connections on 127.0.0.1:PORT`, so no other process can take it between choosing and binding. A missing
//! `nats-server` FAILS the test with a message that says how to install it (`.ci/run` does it with apt-get):
//! a stream test never passes without the engine it tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running (or stopped) `nats-server -js`.
pub(crate) struct NatsServer {
    child: Option<Child>,
    /// The client port (kept across restarts).
    pub port: u16,
    /// The JetStream store directory (kept across restarts, removed on drop).
    pub store: PathBuf,
    log: Arc<Mutex<Vec<String>>>,
}

impl NatsServer {
    /// Starts a server with a fresh store directory named after `name`.
    pub(crate) fn start(name: &str) -> NatsServer {
        let store = std::env::temp_dir().join(format!("tonroute-nats-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&store);
        std::fs::create_dir_all(&store).expect("creating the JetStream store directory");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (child, port) = launch(&store, None, &log);
        NatsServer { child: Some(child), port, store, log }
    }

    /// Starts a server on `port` (a port a test chose, e.g. one a replica already tries in vain), with a fresh
    /// store directory named after `name`.
    pub(crate) fn start_on(name: &str, port: u16) -> NatsServer {
        let mut server = NatsServer::start(name);
        server.port = port;
        server.restart();
        server
    }

    /// `nats://127.0.0.1:PORT`.
    pub(crate) fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Kills the server (the store stays).
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port with the same store.
    pub(crate) fn restart(&mut self) {
        self.stop();
        // The port was just released; a restart binds it again (retrying while the kernel lets go of it).
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (child, port) = launch(&self.store, Some(self.port), &self.log);
            if port == self.port {
                self.child = Some(child);
                return;
            }
            assert!(Instant::now() < deadline, "nats-server could not bind port {} again:\n{}", self.port, self.log());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What the server logged so far.
    pub(crate) fn log(&self) -> String {
        self.log.lock().map(|l| l.join("\n")).unwrap_or_default()
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.store);
    }
}

/// Starts `nats-server -js` and waits for "Server is ready"; returns the child and its client port (0 when it
/// exited before, e.g. because the port was taken).
fn launch(store: &std::path::Path, port: Option<u16>, log: &Arc<Mutex<Vec<String>>>) -> (Child, u16) {
    let port_arg = port.map_or("-1".to_string(), |p| p.to_string());
    let mut child = Command::new("nats-server")
        .args(["-js", "-sd"])
        .arg(store)
        .args(["-a", "127.0.0.1", "-p", &port_arg])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "this test needs a real `nats-server` (NATS with JetStream, Debian package `nats-server`; \
                 `.ci/run` installs it with `apt-get install -y nats-server`), but it cannot be started: {e}"
            )
        });
    let pipe = child.stderr.take().expect("stderr is piped");
    let (tx, rx) = mpsc::channel::<Option<u16>>();
    let sink = Arc::clone(log);
    std::thread::spawn(move || {
        let mut listening = None;
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if let Some(p) = line.split("client connections on 127.0.0.1:").nth(1).and_then(|p| p.trim().parse().ok()) {
                listening = Some(p);
            }
            if line.contains("Server is ready") {
                let _ = tx.send(listening);
            }
            if let Ok(mut l) = sink.lock() {
                l.push(line);
            }
        }
        let _ = tx.send(None);
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Some(p)) => return (child, p),
            Ok(None) => {
                let _ = child.wait();
                return (child, 0);
            }
            Err(_) if Instant::now() > deadline => {
                let _ = child.kill();
                let text = log.lock().map(|l| l.join("\n")).unwrap_or_default();
                panic!("nats-server did not become ready within 30 s:\n{text}");
            }
            Err(_) => {}
        }
    }
}
