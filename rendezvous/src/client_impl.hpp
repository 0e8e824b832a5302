// Private: the client's connection state. A reader thread receives replies
// and events and sends heartbeats when the connection is idle; an event
// thread runs subscription callbacks.
//
// A thread in a blocking quick call reads its reply itself when no other
// thread is reading (leader/follower), saving the hand-off from the reader
// thread; meanwhile, and for a moment after, the reader thread stays parked
// instead of competing for the socket.
//
// Sends are corked: a request joins an outgoing buffer, which the caller
// flushes at once only when no quick request (one the server answers at
// once: not wait_for or fence) is in flight; otherwise the reader thread
// flushes it right after the next batch of replies, which is on its way.
// Pipelined requests thus cost one write per batch instead of one each, and
// a lone request is sent immediately.
//
// Channels (AgentConnection): an Impl may be a member carried on another
// Impl's connection (its link, an observer connection that owns the socket,
// the reader thread and the event thread). Such a channel Impl keeps only
// what is per member (identity, pending requests, subscriptions): its
// requests go, wrapped in ChannelFrames, into the link's send buffer; the
// link's reader dispatches their replies and events to it; the link's
// heartbeats and silence cover it; and when the link fails, every channel
// on it fails with it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "slipway/rendezvous/client.hpp"
#include "slipway/rendezvous/frame_reader.hpp"
#include "slipway/rendezvous/token.hpp"
#include "slipway/rendezvous/wire.hpp"
#include "socket_fd.hpp"

namespace slipway::rendezvous {

// An identity's host and pid, when left empty/0: this host and process.
void fill_in_host_and_pid(Identity& identity);

inline std::int64_t steady_now_ns() { return std::chrono::steady_clock::now().time_since_epoch().count(); }

struct Client::Impl {
  using ReplyHandler = std::function<void(wire::Reply&&)>;

  Impl(std::string endpoint_text, ClientOptions opts);
  ~Impl();

  // The Impl owning the connection: this one, or the link of a channel.
  Impl& link() { return host ? *host : *this; }
  const Impl& link() const { return host ? *host : *this; }
  // Channels: set on a channel Impl, whose link is `host`.
  std::shared_ptr<Impl> host;
  std::uint32_t channel = 0;
  std::weak_ptr<Impl> self;  // for events queued on the link's event thread
  // On a link: its open channels, and the next channel number (never reused).
  std::mutex channels_mutex;
  std::unordered_map<std::uint32_t, std::weak_ptr<Impl>> channels;
  std::uint32_t next_channel = 1;
  // On a link: what a channel's Hello needs (the connection's challenge).
  std::optional<HmacKey> key;
  wire::Nonce server_nonce{};
  std::string wrap_scratch;  // send_mutex held
  // On a channel, until its Welcome comes (the link's reader delivers it).
  std::mutex welcome_mutex;
  std::condition_variable welcome_cv;
  std::optional<wire::Welcome> channel_welcome;
  // Opens this channel Impl on its link as a member (identity set); throws
  // Error as open() does. client_channel.cpp. In two halves for
  // AgentConnection::join_all: send_hello() registers the channel and
  // queues its Hello (written at once when `flush`, else by a later flush
  // of the link); await_welcome() waits for the Welcome and checks the
  // server's proof. A half that throws has forgotten the channel.
  void open_channel();
  void send_hello(bool flush);
  void await_welcome();
  wire::Nonce hello_nonce{};  // the client nonce of this channel's Hello
  void forget_channel();      // off its link's channels
  // Closes this channel: tells the server (unless the link is gone),
  // forgets it on the link, fails what is pending. client_channel.cpp.
  void close_channel();
  // Drops `session`, a reference held on one of the link's own threads:
  // if it is the last one to a channel whose link would go with it, both
  // are leaked instead (a thread cannot join itself), as a Client
  // destroyed from its own callback is.
  static void release_on_link_thread(std::shared_ptr<Impl>& session);
  // A decoded frame for this session (the connection's own, or one of a
  // channel's inner frames).
  void handle_message(wire::Message&& m);
  // Appends one request frame for this session to the link's send buffer
  // (send_mutex held), wrapped for a channel.
  template <class Encode>
  void encode_locked(Encode&& encode, std::uint32_t id);

  // Connects and authenticates; joins when `member`. Throws Error.
  void open(const std::string& token, bool member);
  // One connection's challenge, Hello, Welcome and server proof (open()).
  void handshake(const std::string& token, bool member, detail::Deadline deadline);
  void shutdown();

  // Sends the request built by encode(id, out) and registers `handler` for
  // its reply; `quick`: the server answers it without waiting. Returns the
  // request id. Throws Error when the connection is gone.
  template <class Encode>
  std::uint32_t submit(Encode&& encode, ReplyHandler handler, bool quick);
  // Blocking round trip; throws Error(timeout) after `timeout`.
  template <class Encode>
  wire::Reply call(Encode&& encode, std::chrono::milliseconds timeout, bool quick);
  // Completion slot of a blocking call.
  struct CallSlot {
    std::mutex m;
    std::condition_variable cv;
    std::atomic<bool> done{false};
    wire::Reply reply;
    void complete(wire::Reply&& r) {
      {
        std::lock_guard lock(m);
        reply = std::move(r);
        done.store(true, std::memory_order_release);
      }
      cv.notify_one();
    }
  };
  // Reads replies on this thread until `slot` completes or the deadline
  // passes, unless another thread is reading already.
  void lead_reads(CallSlot& slot, std::chrono::steady_clock::time_point deadline);
  // One recv and the dispatch of what it brought; read_mutex held. False
  // when the connection is gone.
  bool read_batch();
  // Writes the outgoing buffer (send_mutex held). False when the write failed.
  bool flush_locked();
  void flush();
  // Forgets a request whose caller gave up.
  void abandon(std::uint32_t id);
  // Throws Error(status, message) unless the reply is ok.
  static void expect_ok(const wire::Reply& r, Status also_fine = Status::ok);

  void reader_loop();
  void park_while_callers_read();
  void handle_frame(std::span<const std::uint8_t> body);
  void send_heartbeat_if_idle();
  void fail_everything(const Error& error, bool notify);
  // Server silence taken as a lost connection: half an interval under the
  // server's miss budget (from its challenge; 3 intervals of 1 s give
  // 2.5 s), so this side gives up first. Set once by open().
  std::chrono::nanoseconds silence{std::chrono::milliseconds(2500)};
  void dispatch_event(Event&& e);
  void event_loop();
  void forbid_blocking_on_reader() const;

  std::string endpoint;
  ClientOptions options;
  Identity identity;
  std::atomic<bool> member{false};  // a leave's reply may clear it on the reader thread
  std::uint64_t generation = 0;
  std::chrono::milliseconds heartbeat{1000};
  base::UniqueFd fd;
  base::UniqueFd wake;  // eventfd: tells the reader thread to stop

  std::mutex send_mutex;
  std::string send_buffer;  // encoded requests not yet written
  std::atomic<std::int64_t> last_send_ns{0};
  // When the server last sent anything (it answers every heartbeat): a
  // server silent for `silence` is taken as lost,
  // before it would declare this member failed (at its miss budget, 3
  // intervals by default), so a host cut off from the network stops its
  // tasks before their replacements start.
  std::atomic<std::int64_t> last_receive_ns{0};
  // Fails everything (connection_lost) when the server has been silent too
  // long; returns whether it did. Reader thread only.
  bool silent_too_long();
  // Silence counts only while the reader thread waits for the server (in
  // its poll or park, up to look_due_ns, the wait's end). Time past that
  // (this process, or the whole host, stalled, and no heartbeat went out
  // for the server to answer) is taken off the server's silence, as the
  // server takes its own stalls off its members' (engine.cpp, scan), each
  // time the reader thread looks or starts a wait. Without it an agent
  // stopped for 2.5 s killed its task although the server, whose budget is
  // 3 s, still held it (issue 27 item 14). Reader thread only (open() sets
  // it before the thread starts).
  void forgive_own_stall(std::int64_t now);
  std::int64_t look_due_ns = 0;
  std::atomic<int> quick_in_flight{0};

  struct Pending {
    ReplyHandler handler;
    bool quick = false;
  };
  std::mutex pending_mutex;
  std::uint32_t next_id = 1;
  std::unordered_map<std::uint32_t, Pending> pending;
  bool broken = false;
  std::optional<Error> broken_error;

  std::thread reader;
  std::atomic<std::thread::id> reader_id{};
  std::mutex read_mutex;  // held by whichever thread reads the socket
  wire::FrameReader frames;
  std::vector<std::uint8_t> read_buffer;
  std::atomic<int> leaders{0};  // blocking callers reading for themselves
  std::atomic<std::int64_t> last_leader_ns{0};
  std::mutex park_mutex;
  std::condition_variable park_cv;
  std::atomic<bool> closing{false};

  // Subscriptions: local callbacks, and how many use each server filter.
  struct Sub {
    std::uint8_t kinds;
    std::string prefix;
    EventCallback callback;
  };
  std::mutex subs_mutex;
  SubscriptionId next_sub = 1;
  std::map<SubscriptionId, Sub> subs;
  std::map<std::pair<std::uint8_t, std::string>, int> filters;

  std::mutex events_mutex;
  std::condition_variable events_cv;
  // On a link: events for it and its channels, each with its session.
  std::deque<std::pair<std::weak_ptr<Impl>, Event>> events;
  bool events_stop = false;
  std::thread event_thread;
};

template <class Encode>
void Client::Impl::encode_locked(Encode&& encode, std::uint32_t id) {
  Impl& l = link();
  if (channel == 0) {
    encode(id, l.send_buffer);
    return;
  }
  l.wrap_scratch.clear();
  encode(id, l.wrap_scratch);
  wire::wrap_in_channel(channel, l.wrap_scratch, l.send_buffer);
}

template <class Encode>
std::uint32_t Client::Impl::submit(Encode&& encode, ReplyHandler handler, bool quick) {
  std::uint32_t id;
  {
    std::lock_guard lock(pending_mutex);
    if (broken) throw *broken_error;
    id = next_id++;
    if (next_id == 0) next_id = 1;
    pending.emplace(id, Pending{std::move(handler), quick});
  }
  Impl& l = link();
  std::lock_guard lock(l.send_mutex);
  // A quick request already in flight guarantees a reply batch, after which
  // the reader flushes (it takes send_mutex after counting the reply).
  const int before = quick ? l.quick_in_flight.fetch_add(1) : l.quick_in_flight.load();
  encode_locked(std::forward<Encode>(encode), id);
  if ((before == 0 || l.send_buffer.size() > (256u << 10)) && !l.flush_locked()) {
    {
      std::lock_guard plock(pending_mutex);
      if (pending.erase(id) && quick) l.quick_in_flight.fetch_sub(1);
    }
    throw Error(Status::connection_lost, "lost the connection to the rendezvous at " + endpoint + " while sending");
  }
  return id;
}

template <class Encode>
wire::Reply Client::Impl::call(Encode&& encode, std::chrono::milliseconds timeout, bool quick) {
  link().forbid_blocking_on_reader();
  auto slot = std::make_shared<CallSlot>();
  const std::uint32_t id = submit(
      std::forward<Encode>(encode), [slot](wire::Reply&& r) { slot->complete(std::move(r)); }, quick);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if (quick) link().lead_reads(*slot, deadline);
  std::unique_lock lock(slot->m);
  if (!slot->cv.wait_until(lock, deadline, [&] { return slot->done.load(std::memory_order_acquire); })) {
    lock.unlock();
    abandon(id);
    throw Error(Status::timeout, "no reply from the rendezvous at " + endpoint + " within " +
                                     std::to_string(timeout.count()) + " ms");
  }
  return std::move(slot->reply);
}

}  // namespace slipway::rendezvous
