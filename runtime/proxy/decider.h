/* SPDX-License-Identifier: MIT
 * The client of `network decide "PROGRAM" ARGS...`: heel-proxy starts the
 * program once and asks it about each new destination, one JSON line
 * each way, without ever blocking its event loop. No answer in time, an
 * answer that is not {allow, reason}, or a decider that is gone is a
 * refusal, of that question and of every later one. Linux; never prints.
 *
 * The protocol. A question, on the decider's stdin:
 *   {"host":"example.org","port":443,"method":"CONNECT","allowed_by_list":false}
 * ("allowed_by_list": what the allow-list alone says; the list is asked
 * first). An answer, on its stdout, in the order the questions came:
 *   {"allow":true,"reason":"..."}
 * "allow" is required and true or false; "reason" is an optional string
 * (null counts as absent); other keys are ignored. Anything else is a bad
 * answer: not JSON, a key twice, not an object, no boolean "allow", a
 * reason that is not a string, a line over PROXY_DECIDER_LINE_MAX bytes,
 * an answer to a question that was not asked.
 *
 * Assumptions about the proxy: SIGPIPE is ignored (a write to a decider
 * that is gone fails with EPIPE instead of killing the proxy), SIGCHLD is
 * not (the decider is reaped with waitpid(2) and its status named), and
 * the proxy has one thread (PR_SET_PDEATHSIG fires when the thread that
 * forked exits).
 *
 * In the event loop: register proxy_decider_read_fd() for EPOLLIN and
 * call proxy_decider_readable() when it fires; register
 * proxy_decider_write_fd() for EPOLLOUT while proxy_decider_wants_write()
 * and call proxy_decider_writable(); bound the wait by
 * proxy_decider_next_deadline() and call proxy_decider_expire() after it.
 * Those three return 1 when the decider died during the call: both its
 * descriptors are closed then (which took them out of the epoll set), so
 * the caller forgets them. Times are the caller's CLOCK_MONOTONIC in
 * milliseconds (never negative): the module reads no clock itself. */
#ifndef HEEL_PROXY_DECIDER_H
#define HEEL_PROXY_DECIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Questions without an answer yet, at most; one more is refused at once. */
#define PROXY_DECIDER_PENDING_MAX 256
/* The longest answer line, newline not counted. */
#define PROXY_DECIDER_LINE_MAX 4096
#define PROXY_DECIDER_TIMEOUT_MS 5000
/* Between SIGTERM and SIGKILL when the proxy stops the decider. */
#define PROXY_DECIDER_STOP_GRACE_MS 500

struct proxy_decider;

/* An answer to the question asked with token: allowed or not, and why
 * (never NULL; UTF-8 without control characters, so it may go into a 403
 * line as it is; valid during the call only). Called from
 * proxy_decider_readable(), _writable() and _expire(), which may be
 * called again from it only through proxy_decider_ask(); never call
 * proxy_decider_stop() from it. */
typedef void proxy_decider_answer_fn(void *ctx, uint64_t token, bool allow, const char *reason);

/* Starts argv[0] (a path, or a name looked up in /usr/bin:/bin) with
 * argv, before the proxy confines itself. The decider gets pipes from
 * and to the proxy as stdin and stdout, the proxy's stderr, no other
 * descriptor, a process group of its own (so it is killed with whatever
 * it started), SIGKILL when the proxy dies (PR_SET_PDEATHSIG), default
 * signal dispositions and an empty signal mask, and a fixed environment:
 * PATH=/usr/bin:/bin, and HOME and LANG when the proxy has them; nothing
 * else of the proxy's environment (it is the launcher's, and may hold
 * secrets). Returns once the program was executed: 0 with *out (caller
 * stops it), or -errno with a message in err (a program that cannot be
 * executed is an error here, not a refusal later). */
int proxy_decider_start(struct proxy_decider **out, char *const argv[], char *err,
			size_t errlen);

/* How long an answer may take: PROXY_DECIDER_TIMEOUT_MS unless set. */
void proxy_decider_set_timeout(struct proxy_decider *d, long long ms);

/* The descriptors to watch, or -1 once the decider is dead. */
int proxy_decider_read_fd(const struct proxy_decider *d);
int proxy_decider_write_fd(const struct proxy_decider *d);

/* Questions are written as they are asked; when the pipe is full they
 * wait in a buffer (bounded: a question that does not fit is refused like
 * one beyond PROXY_DECIDER_PENDING_MAX) until the pipe can take them. */
bool proxy_decider_wants_write(const struct proxy_decider *d);

/* Asks about host:port (host: the canonical text; method: "CONNECT",
 * "GET", ..., "SOCKS5"); now_ms is when. 0: asked, and the answer comes
 * to the callback with token. Otherwise the question is refused here and
 * now, with *why (valid until the next call on d): -EPIPE, the decider is
 * dead (why says how it died); -EBUSY, too many questions pending; -EINVAL,
 * host or method cannot be put into a question. Never calls the callback;
 * a write that fails is noticed here and reported by the next
 * proxy_decider_expire() (the deadline is then now). */
int proxy_decider_ask(struct proxy_decider *d, uint64_t token, const char *host, uint16_t port,
		      const char *method, bool allowed_by_list, long long now_ms,
		      const char **why);

/* Reads what the decider wrote and answers each question it answered,
 * through cb. 1: the decider died (end of its output, a bad answer) and
 * every pending question was refused through cb; 0 otherwise. */
int proxy_decider_readable(struct proxy_decider *d, proxy_decider_answer_fn *cb, void *ctx);

/* Writes questions that waited for room in the pipe. 1 when the decider
 * died (it stopped reading), as proxy_decider_readable(). */
int proxy_decider_writable(struct proxy_decider *d, proxy_decider_answer_fn *cb, void *ctx);

/* At now_ms: when the oldest question waited the timeout, or a write
 * failed, the decider is dead: killed, and every pending question refused
 * through cb. 1 when it died in this call, 0 otherwise. */
int proxy_decider_expire(struct proxy_decider *d, long long now_ms, proxy_decider_answer_fn *cb,
			 void *ctx);

/* When proxy_decider_expire() has something to do (maybe already past),
 * or -1 when nothing waits. */
long long proxy_decider_next_deadline(const struct proxy_decider *d);

/* NULL while the decider lives; how it died once it is dead (the reason
 * every question is refused with). */
const char *proxy_decider_dead_reason(const struct proxy_decider *d);

/* The decider's process id, which is also its process group's. */
pid_t proxy_decider_pid(const struct proxy_decider *d);

/* Ends the decider: closes its pipes (a decider reading its stdin sees
 * the end), sends SIGTERM to its process group, SIGKILL after
 * PROXY_DECIDER_STOP_GRACE_MS, reaps it, and frees d. Pending questions
 * are dropped without a callback: the proxy is ending. Returns the
 * decider's wait status (that of its death, if it died earlier); NULL d:
 * 0. */
int proxy_decider_stop(struct proxy_decider *d);

#endif
