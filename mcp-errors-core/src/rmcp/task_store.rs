//! [`TaskStore`]: the tasks an [`ErrorBoundary`](super::ErrorBoundary) runs, each bound to the
//! caller that created it, bounded in number per caller and in all, and their ends kept within
//! a byte budget.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use ::rmcp::ErrorData;
use ::rmcp::model::{DetailedTask, Task};
use ::rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};

/// The most tasks a [`TaskStore`] holds unless told otherwise.
const DEFAULT_MAX_TASKS: usize = 4_096;

/// The most tasks one caller's scope holds unless told otherwise.
const DEFAULT_MAX_TASKS_PER_SCOPE: usize = 256;

/// The most bytes of finished tasks a [`TaskStore`] keeps unless told otherwise: 32 MiB.
const DEFAULT_MAX_FINISHED_BYTES: usize = 32 << 20;

/// What a finished task costs beyond its result or error as JSON: its task, its entry here and
/// the manager that ran it.
const ENTRY_OVERHEAD_BYTES: usize = 1_024;

/// The wait a refused caller is told when no task it waits on has a time to live.
const RETRY_AFTER_UNBOUNDED: Duration = Duration::from_secs(1);

/// The tasks of an [`ErrorBoundary`](super::ErrorBoundary)'s tools run as tasks (see
/// [`ErrorBoundary::with_tasks`](super::ErrorBoundary::with_tasks)): each one run by rmcp's
/// `TaskManager`, bound to the caller that created it, and bounded.
///
/// **Bound to its caller.** A task records the scope of the request that created it, the
/// scope idempotency records are bound to: over Streamable HTTP the SHA-256 of the request's
/// `Authorization` header when it has one, else its `Mcp-Session-Id`, else one scope shared by
/// every anonymous caller; over stdio, the process. `tasks/get`, `tasks/update` and
/// `tasks/cancel` for a task of another scope are answered exactly as for an id the store
/// never knew (-32602 `unknown task: <id>`): its status, its result and its cancellation
/// belong to its creator alone.
///
/// **Bounded.** The store holds at most [`max_tasks`](Self::max_tasks) tasks (4 096 by
/// default) and, of one scope, at most [`max_tasks_per_scope`](Self::max_tasks_per_scope)
/// (256): running and finished alike, as both hold memory. A call that would pass either is
/// refused before the tool runs, with the execution error `TOO_MANY_TASKS` (category
/// `rate_limited`, retryable, `retryAfterMs` the time until the soonest of the scope's tasks,
/// or the store's, reaches its time to live; 1 s when none has one; `details.limit` `scope` or
/// `server`, `details.maxTasks`). A finished task is kept for its time to live from its end,
/// within [`max_finished_bytes`](Self::max_finished_bytes) (32 MiB; a task counts its result
/// or error as JSON plus 1 KiB): past it, the oldest finished tasks are dropped first, and
/// `tasks/get` then answers -32602. A running task whose time to live runs out fails with
/// rmcp's -32603 and is kept as a finished one.
///
/// A lookup reads its one task: the store keeps its tasks by id, and their deadlines in time
/// order, and each call takes from the front of that order only the tasks that are due.
///
/// Clones share the tasks: give the same store to the boundary of every session.
///
/// ```
/// use mcp_errors_core::rmcp::TaskStore;
///
/// let tasks = TaskStore::new()
///     .max_tasks(10_000)
///     .max_tasks_per_scope(100)
///     .max_finished_bytes(64 << 20);
/// let shared = tasks.clone(); // the same tasks
/// # let _ = shared;
/// ```
#[derive(Clone)]
pub struct TaskStore {
    index: Arc<Mutex<Index>>,
}

impl TaskStore {
    /// An empty store with the default bounds.
    pub fn new() -> Self {
        TaskStore {
            index: Arc::new(Mutex::new(Index::new())),
        }
    }

    /// Hold at most `n` tasks (at least 1), running and finished, of every scope together.
    pub fn max_tasks(self, n: usize) -> Self {
        self.lock().max_tasks = n.max(1);
        self
    }

    /// Hold at most `n` tasks (at least 1), running and finished, of any one scope. Over
    /// stdio, where the process is the only scope, set it to [`max_tasks`](Self::max_tasks).
    pub fn max_tasks_per_scope(self, n: usize) -> Self {
        self.lock().max_tasks_per_scope = n.max(1);
        self
    }

    /// Keep at most `n` bytes of finished tasks, dropping the oldest finished first.
    pub fn max_finished_bytes(self, n: usize) -> Self {
        self.lock().max_finished_bytes = n;
        self
    }

    /// Asks the task `id` to stop, as `tasks/cancel` does, whoever created it: for the
    /// server's own use (an operator stopping a task), never a caller's. Whether the store
    /// holds such a task.
    pub fn cancel(&self, id: &str) -> bool {
        let manager = self.lock().tasks.get(id).map(|entry| entry.manager.clone());
        manager.is_some_and(|manager| manager.cancel_task(id).is_ok())
    }

    /// Runs `make`'s future as a task of `scope` with `options`, unless the store is full for
    /// `scope`.
    pub(super) fn spawn<F>(
        &self,
        scope: String,
        options: &TaskOptions,
        make: F,
    ) -> Result<Task, Full>
    where
        F: FnOnce(TaskContext) -> TaskFuture,
    {
        let now = Instant::now();
        let mut index = self.lock();
        index.sweep(now);
        index.room_for(&scope, now)?;
        let store = self.clone();
        // A manager of its own: rmcp's manager walks all its tasks on every call.
        let manager = TaskManager::new();
        // The index is locked until the task is in it, so its end always finds it.
        let task = manager.spawn(options.clone(), move |context| {
            let id = context.task_id().to_owned();
            let run = make(context);
            Box::pin(async move {
                let ended = run.await;
                let bytes = match &ended {
                    Ok(result) => json_len(result),
                    Err(TaskExit::Error(error)) => json_len(error),
                    Err(TaskExit::Cancelled) => 0,
                };
                store.lock().finish(&id, bytes, Instant::now());
                ended
            })
        });
        let ttl = options.ttl_ms.map(Duration::from_millis);
        index.insert(&task.task_id, scope, manager, ttl, now);
        Ok(task)
    }

    /// `tasks/get` of `scope` for `id`.
    pub(super) fn get(&self, scope: &str, id: &str) -> Result<DetailedTask, ErrorData> {
        self.owned(scope, id)?.get_task(id)
    }

    /// `tasks/update` of `scope` for `id`.
    pub(super) fn update(
        &self,
        scope: &str,
        id: &str,
        responses: impl IntoIterator<Item = (String, serde_json::Value)>,
    ) -> Result<(), ErrorData> {
        self.owned(scope, id)?.update_task(id, responses)
    }

    /// `tasks/cancel` of `scope` for `id`.
    pub(super) fn cancel_for(&self, scope: &str, id: &str) -> Result<(), ErrorData> {
        self.owned(scope, id)?.cancel_task(id)
    }

    /// The manager of the task `id` when `scope` created it; else the error of an unknown id.
    fn owned(&self, scope: &str, id: &str) -> Result<TaskManager, ErrorData> {
        let mut index = self.lock();
        index.sweep(Instant::now());
        index.owned(scope, id).ok_or_else(|| unknown_task(id))
    }

    fn lock(&self) -> MutexGuard<'_, Index> {
        // Every step leaves the index consistent, so a panic elsewhere leaves nothing to repair.
        self.index.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for TaskStore {
    fn default() -> Self {
        TaskStore::new()
    }
}

impl fmt::Debug for TaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let index = self.lock();
        f.debug_struct("TaskStore")
            .field("tasks", &index.tasks.len())
            .field("finished_bytes", &index.finished_bytes)
            .field("max_tasks", &index.max_tasks)
            .field("max_tasks_per_scope", &index.max_tasks_per_scope)
            .field("max_finished_bytes", &index.max_finished_bytes)
            .finish()
    }
}

/// The error rmcp's manager answers for an id it does not know, word for word: a task of
/// another scope is answered with it too.
fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {id}"), None)
}

/// The length of `value` as JSON.
fn json_len(value: &impl serde::Serialize) -> usize {
    serde_json::to_vec(value).map_or(0, |bytes| bytes.len())
}

/// A call refused for want of room: which bound, at how many tasks, and the wait until a task
/// of the scope (or of the store) may go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Full {
    pub(super) limit: Limit,
    pub(super) max: usize,
    pub(super) retry_after: Duration,
}

/// The bound a refused call met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Limit {
    /// The caller's scope holds its most tasks.
    Scope,
    /// The store holds its most tasks.
    Server,
}

/// When a task is next due, and a number that keeps two equal instants apart.
type Deadline = (Instant, u64);

/// The tasks by id, by scope, by deadline and, finished, by the order they finished in.
struct Index {
    max_tasks: usize,
    max_tasks_per_scope: usize,
    max_finished_bytes: usize,
    tasks: HashMap<String, Entry>,
    scopes: HashMap<Arc<str>, ScopeTasks>,
    /// Each task's next deadline: a running task's time to live runs out, a finished one goes.
    deadlines: BTreeMap<Deadline, String>,
    /// The finished tasks, oldest first.
    finished: BTreeMap<u64, String>,
    finished_bytes: usize,
    /// The number of the next deadline or end.
    next: u64,
}

/// The tasks of one scope: how many, and their deadlines.
#[derive(Default)]
struct ScopeTasks {
    held: usize,
    deadlines: BTreeSet<Deadline>,
}

struct Entry {
    scope: Arc<str>,
    /// The manager that runs this task alone.
    manager: TaskManager,
    ttl: Option<Duration>,
    deadline: Option<Deadline>,
    /// When finished: its number in [`Index::finished`] and its bytes.
    finished: Option<(u64, usize)>,
}

impl Index {
    fn new() -> Self {
        Index {
            max_tasks: DEFAULT_MAX_TASKS,
            max_tasks_per_scope: DEFAULT_MAX_TASKS_PER_SCOPE,
            max_finished_bytes: DEFAULT_MAX_FINISHED_BYTES,
            tasks: HashMap::new(),
            scopes: HashMap::new(),
            deadlines: BTreeMap::new(),
            finished: BTreeMap::new(),
            finished_bytes: 0,
            next: 0,
        }
    }

    fn number(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// Whether a task of `scope` fits, else the bound it meets.
    fn room_for(&self, scope: &str, now: Instant) -> Result<(), Full> {
        let own = self.scopes.get(scope);
        if own.map_or(0, |own| own.held) >= self.max_tasks_per_scope {
            let soonest = own.and_then(|own| own.deadlines.first());
            return Err(Full {
                limit: Limit::Scope,
                max: self.max_tasks_per_scope,
                retry_after: wait_for(soonest, now),
            });
        }
        if self.tasks.len() >= self.max_tasks {
            return Err(Full {
                limit: Limit::Server,
                max: self.max_tasks,
                retry_after: wait_for(self.deadlines.keys().next(), now),
            });
        }
        Ok(())
    }

    /// Holds the running task `id` of `scope`, due at `now + ttl`.
    fn insert(
        &mut self,
        id: &str,
        scope: String,
        manager: TaskManager,
        ttl: Option<Duration>,
        now: Instant,
    ) {
        let scope = match self.scopes.get_key_value(scope.as_str()) {
            Some((known, _)) => known.clone(),
            None => Arc::from(scope),
        };
        self.scopes.entry(scope.clone()).or_default().held += 1;
        let entry = Entry {
            scope,
            manager,
            ttl,
            deadline: None,
            finished: None,
        };
        if let Some(old) = self.tasks.insert(id.to_owned(), entry) {
            // Task ids are fresh UUIDs; should one repeat, the old task goes.
            old.manager.shutdown();
            self.forget(&old);
        }
        if let Some(ttl) = ttl {
            self.schedule(id, now + ttl);
        }
    }

    /// The manager of `id` when `scope` holds it.
    fn owned(&self, scope: &str, id: &str) -> Option<TaskManager> {
        let entry = self.tasks.get(id)?;
        (&*entry.scope == scope).then(|| entry.manager.clone())
    }

    /// Makes `at` the next deadline of `id`, or none.
    fn schedule_at(&mut self, id: &str, at: Option<Instant>) {
        let next = at.map(|at| (at, self.number()));
        let Some(entry) = self.tasks.get_mut(id) else {
            return;
        };
        let old = std::mem::replace(&mut entry.deadline, next);
        let own = self.scopes.entry(entry.scope.clone()).or_default();
        if let Some(old) = old {
            self.deadlines.remove(&old);
            own.deadlines.remove(&old);
        }
        if let Some(next) = next {
            self.deadlines.insert(next, id.to_owned());
            own.deadlines.insert(next);
        }
    }

    fn schedule(&mut self, id: &str, at: Instant) {
        self.schedule_at(id, Some(at));
    }

    /// Records that `id` ended with `bytes` of result or error at `now`: it is kept for its
    /// time to live, and the oldest finished tasks go while their bytes pass the budget.
    fn finish(&mut self, id: &str, bytes: usize, now: Instant) {
        let order = self.number();
        let Some(entry) = self.tasks.get_mut(id) else {
            return;
        };
        if entry.finished.is_some() {
            return;
        }
        let bytes = ENTRY_OVERHEAD_BYTES + bytes;
        entry.finished = Some((order, bytes));
        let ttl = entry.ttl;
        self.finished.insert(order, id.to_owned());
        self.finished_bytes += bytes;
        self.schedule_at(id, ttl.map(|ttl| now + ttl));
        while self.finished_bytes > self.max_finished_bytes {
            let Some((_, oldest)) = self.finished.first_key_value() else {
                break;
            };
            let oldest = oldest.clone();
            self.evict(&oldest);
        }
    }

    /// Drops `id` and stops what it still runs.
    fn evict(&mut self, id: &str) {
        if let Some(entry) = self.tasks.remove(id) {
            entry.manager.shutdown();
            self.forget(&entry);
        }
    }

    /// Takes `entry`, gone from the tasks, out of every other map.
    fn forget(&mut self, entry: &Entry) {
        if let Some(deadline) = entry.deadline {
            self.deadlines.remove(&deadline);
        }
        if let Some((order, bytes)) = entry.finished {
            self.finished.remove(&order);
            self.finished_bytes -= bytes;
        }
        if let Some(own) = self.scopes.get_mut(&entry.scope) {
            own.held -= 1;
            if let Some(deadline) = entry.deadline {
                own.deadlines.remove(&deadline);
            }
            if own.held == 0 {
                self.scopes.remove(&entry.scope);
            }
        }
    }

    /// Handles the tasks due at `now`, and only those: a finished task goes; a running one is
    /// failed by its manager (rmcp's time-to-live sweep, over its one task) and kept as
    /// finished. How many tasks it visited.
    fn sweep(&mut self, now: Instant) -> usize {
        let mut visited = 0;
        while let Some(entry) = self.deadlines.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let id = entry.remove();
            visited += 1;
            let Some(task) = self.tasks.get(&id) else {
                continue;
            };
            if task.finished.is_some() {
                self.evict(&id);
                continue;
            }
            let bytes = task
                .manager
                .get_task(&id)
                .map_or(0, |failed| json_len(&failed));
            // The deadline is spent: `finish` must not find it in the maps.
            self.schedule_at(&id, None);
            self.finish(&id, bytes, now);
        }
        visited
    }
}

/// The wait until `soonest`, or [`RETRY_AFTER_UNBOUNDED`] without one; at least 1 ms.
fn wait_for(soonest: Option<&Deadline>, now: Instant) -> Duration {
    soonest
        .map_or(RETRY_AFTER_UNBOUNDED, |(at, _)| {
            at.saturating_duration_since(now)
        })
        .max(Duration::from_millis(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn filled(n: usize, scopes: usize, now: Instant) -> Index {
        let mut index = Index::new();
        index.max_tasks = usize::MAX;
        index.max_tasks_per_scope = usize::MAX;
        for i in 0..n {
            let scope = format!("scope-{}", i % scopes);
            index.insert(
                &format!("t{i}"),
                scope,
                TaskManager::new(),
                Some(MINUTE),
                now,
            );
        }
        index
    }

    #[test]
    fn a_lookup_visits_the_due_tasks_only_however_many_are_held() {
        let now = Instant::now();
        for held in [1_000, 20_000] {
            let mut index = filled(held, 4, now);
            for i in 0..3 {
                let id = format!("short{i}");
                let ttl = Some(Duration::from_millis(10));
                index.insert(&id, "scope-0".into(), TaskManager::new(), ttl, now);
            }
            assert_eq!(index.sweep(now), 0, "nothing is due among {held}");
            assert!(index.owned("scope-1", "t1").is_some());
            // Three running tasks run out: each is failed and kept, nothing else is read.
            let later = now + Duration::from_millis(20);
            assert_eq!(index.sweep(later), 3, "held {held}");
            assert!(index.tasks["short0"].finished.is_some());
            assert_eq!(index.tasks.len(), held + 3);
            // A minute after their end they go; the others run out then, and are kept.
            assert_eq!(index.sweep(later + MINUTE), held + 3);
            assert_eq!(index.tasks.len(), held);
            assert_eq!(index.finished.len(), held);
            assert_eq!(index.sweep(later + 2 * MINUTE), held);
            assert!(index.tasks.is_empty() && index.scopes.is_empty());
            assert!(index.deadlines.is_empty() && index.finished.is_empty());
            assert_eq!(index.finished_bytes, 0);
        }
    }

    #[test]
    fn a_task_is_found_by_its_own_scope_only() {
        let now = Instant::now();
        let index = filled(4, 2, now);
        assert!(index.owned("scope-0", "t0").is_some());
        assert!(index.owned("scope-1", "t0").is_none());
        assert!(index.owned("scope-0", "t1").is_none());
        assert!(index.owned("scope-0", "nope").is_none());
    }

    #[test]
    fn a_full_scope_is_told_to_wait_for_its_soonest_task_and_other_scopes_are_not() {
        let now = Instant::now();
        let mut index = Index::new();
        index.max_tasks_per_scope = 2;
        index.max_tasks = 3;
        index.insert("a", "one".into(), TaskManager::new(), Some(MINUTE), now);
        let soon = Some(Duration::from_secs(5));
        index.insert("b", "one".into(), TaskManager::new(), soon, now);
        let full = index.room_for("one", now).unwrap_err();
        assert_eq!(full.limit, Limit::Scope);
        assert_eq!(full.max, 2);
        assert_eq!(full.retry_after, Duration::from_secs(5));
        assert_eq!(index.room_for("two", now), Ok(()));
        index.insert("c", "two".into(), TaskManager::new(), None, now);
        let full = index.room_for("three", now).unwrap_err();
        assert_eq!(full.limit, Limit::Server);
        assert_eq!(full.retry_after, Duration::from_secs(5));
        // A scope whose tasks never expire is told the default wait.
        index.max_tasks_per_scope = 1;
        let full = index.room_for("two", now).unwrap_err();
        assert_eq!(full.retry_after, RETRY_AFTER_UNBOUNDED);
        // A task gone frees its place.
        index.evict("b");
        assert_eq!(index.room_for("one", now).unwrap_err().limit, Limit::Scope);
        index.max_tasks_per_scope = 2;
        assert_eq!(index.room_for("one", now), Ok(()));
    }

    #[test]
    fn over_the_byte_budget_the_oldest_finished_tasks_go_first() {
        let now = Instant::now();
        let mut index = filled(4, 1, now);
        index.max_finished_bytes = 3 * ENTRY_OVERHEAD_BYTES + 300;
        index.finish("t2", 100, now);
        index.finish("t0", 100, now);
        index.finish("t3", 100, now);
        assert_eq!(index.tasks.len(), 4);
        index.finish("t1", 100, now);
        assert!(!index.tasks.contains_key("t2"), "the oldest finished went");
        assert_eq!(index.tasks.len(), 3);
        assert_eq!(index.finished_bytes, 3 * (ENTRY_OVERHEAD_BYTES + 100));
        // Finishing twice counts once.
        index.finish("t1", 100, now);
        assert_eq!(index.finished_bytes, 3 * (ENTRY_OVERHEAD_BYTES + 100));
        assert_eq!(index.scopes["scope-0"].held, 3);
        assert_eq!(index.scopes["scope-0"].deadlines.len(), 3);
    }

    #[test]
    fn a_finished_task_is_kept_for_its_ttl_from_its_end() {
        let now = Instant::now();
        let mut index = filled(1, 1, now);
        let end = now + Duration::from_secs(50);
        index.finish("t0", 0, end);
        assert_eq!(index.sweep(now + MINUTE), 0, "kept past its creation's ttl");
        assert_eq!(index.sweep(end + MINUTE), 1);
        assert!(index.tasks.is_empty());
    }

    #[tokio::test]
    async fn each_task_has_a_manager_of_its_own_and_its_end_is_recorded() {
        let store = TaskStore::new();
        let mut ids = Vec::new();
        for _ in 0..3 {
            let task = store
                .spawn("me".into(), &TaskOptions::new(), |_| {
                    Box::pin(async {
                        Ok(::rmcp::model::CallToolResult::success(vec![
                            ::rmcp::model::ContentBlock::text("done"),
                        ]))
                    })
                })
                .unwrap();
            ids.push(task.task_id);
        }
        for _ in 0..200 {
            if store.lock().finished.len() == 3 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let index = store.lock();
        assert_eq!(index.finished.len(), 3);
        for (n, id) in ids.iter().enumerate() {
            let manager = index.owned("me", id).unwrap();
            assert!(manager.get_task(id).is_ok());
            // rmcp's sweep of this manager reads this task alone.
            let other = &ids[(n + 1) % ids.len()];
            assert!(
                manager.get_task(other).is_err(),
                "{other} in {id}'s manager"
            );
            assert!(index.owned("you", id).is_none());
        }
    }
}
