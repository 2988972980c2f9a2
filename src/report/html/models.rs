//! What `report.html` says of each model: the question it answers when the config file asks
//! none, what it assumes and leaves out (the short form of its docs page's "What it assumes"
//! section), and that page.

/// The words of one model on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct About {
    /// The question a run of the model answers, shown when the config file has no leading
    /// comment.
    pub question: &'static str,
    /// What the model assumes and what it does not model, one paragraph each (Markdown).
    pub assumptions: &'static [&'static str],
    /// Its page in the project's docs, relative to the project's root.
    pub docs: &'static str,
}

/// The article model: the source article's experiment.
const ARTICLE: About = About {
    question: "How many customers are charged twice when responses (ACKs) are lost and clients \
               send the same request again, with and without an Idempotency-Key?",
    assumptions: &[
        "Every delivery reaches the server and is processed; only responses are lost, each \
         independently with the same probability p. A client without an ACK sends the request \
         again at once, up to its retry limit: there is no clock, no timeout, no backoff and no \
         concurrency, so two deliveries of a request never overlap.",
        "The key server keeps every key for ever, answers every duplicate with the stored \
         response and never fails between charging and storing the key. Key TTLs, other bodies \
         under one key, crashes and where the key is stored are the timeline model's.",
    ],
    docs: "docs/models/article.md",
};

/// The timeline model: time, latencies, timeouts and the server's strategies.
const TIMELINE: About = About {
    question: "Which server design charges each customer once under these latencies, losses, \
               timeouts and retries?",
    assumptions: &[
        "A deterministic discrete-event simulation: payments arrive, each network leg has its \
         own latency and loss, clients time out and retry with their backoff, and every \
         strategy of the server (no key, a check then an insert, a unique key, ...) sees \
         exactly the same sampled arrivals, latencies and losses.",
        "The server has no shared capacity (payments do not queue behind each other: the load \
         model adds that); latencies are independent draws per message, with no correlated \
         slowness or partitions; clients go offline and reconcile only as `client.offline` and \
         `client.reconciliation` say; the key store never renews a key's TTL and loses a key only as `key_store` and \
         `key_write_failure` say.",
    ],
    docs: "docs/models/timeline.md",
};

/// The load model: the timeline under one shared server.
const LOAD: About = About {
    question: "Does the server survive this load, and how many customers are charged twice when \
               timeouts and retries pile onto a shared server?",
    assumptions: &[
        "Every payment of a run shares one server: a pool of workers with a FIFO queue. \
         Timeouts come from queueing, retries add load, and an overload can outlive its \
         trigger; the clients' retry control and the server's load shedding are what stop it.",
        "It leaves out copies of a payment, other bodies, a provider and receipts (the \
         timeline model has them), a key store that renews a key's TTL, the cost of a 409 or a replay \
         (no worker time), cancelling work when a client gives up, lock wait timeouts and a \
         client's own concurrency limit.",
    ],
    docs: "docs/models/load.md",
};

/// The contention model: clients racing to update one row.
const CONTENTION: About = About {
    question: "Which backoff lets these clients finish their writes to one row soonest, and at \
               what cost in calls?",
    assumptions: &[
        "One row, one version counter, optimistic concurrency: a write succeeds only if no \
         other write was accepted since its read, and a rejected client backs off, reads \
         again and writes again. Every client starts at time 0 with one request in flight; \
         every message takes an independent delay and none is lost.",
        "No locks, no queue and no capacity limit at the database, no arrivals over time and \
         no timeouts. It counts calls and time, not charges: it answers which backoff lets N \
         writers finish, not who is charged twice.",
    ],
    docs: "docs/models/contention.md",
};

/// What the page says of `model` (a [`crate::models::Model::NAME`]).
///
/// # Panics
/// If the model is unknown (a programming error the tests catch).
pub fn about(model: &str) -> &'static About {
    match model {
        "article" => &ARTICLE,
        "timeline" => &TIMELINE,
        "load" => &LOAD,
        "contention" => &CONTENTION,
        _ => panic!("no words for the model `{model}`"),
    }
}
