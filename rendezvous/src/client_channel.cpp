// A member on a shared connection (AgentConnection): opening its channel
// (a Hello inside it, proved with the connection's challenge and the
// channel number), closing it, and the AgentConnection that hands them out.
#include <sys/socket.h>
#include <unistd.h>

#include "client_impl.hpp"
#include "slipway/base/local_address.hpp"
#include "slipway/rendezvous/agent_connection.hpp"

namespace slipway::rendezvous {

void fill_in_host_and_pid(Identity& identity) {
  if (identity.host.empty()) identity.host = base::this_host_name();
  if (identity.pid == 0) identity.pid = ::getpid();
}

namespace {

// Appends `m`, wrapped for `channel`, to the link's send buffer and writes
// it (unless `flush` is false: a later flush does); false when the
// connection is gone.
bool send_in_channel(Client::Impl& link, std::uint32_t channel, const wire::Message& m, bool flush = true) {
  std::lock_guard lock(link.send_mutex);
  link.wrap_scratch.clear();
  wire::encode(m, link.wrap_scratch);
  wire::wrap_in_channel(channel, link.wrap_scratch, link.send_buffer);
  return !flush || link.flush_locked();
}

}  // namespace

void Client::Impl::open_channel() {
  send_hello(true);
  await_welcome();
}

void Client::Impl::send_hello(bool flush) {
  Impl& l = *host;
  l.forbid_blocking_on_reader();
  wire::Hello hello;
  hello.role = wire::Role::member;
  hello.identity = identity;
  random_bytes(hello.client_nonce);
  hello_nonce = hello.client_nonce;
  {
    std::lock_guard lock(l.channels_mutex);
    channel = l.next_channel++;
    if (l.next_channel == 0) l.next_channel = 1;
    l.channels[channel] = self;
  }
  {
    // After registering: a link that fails from now on fails this channel
    // too (it is marked broken before its channels are failed).
    std::unique_lock broken_lock(l.pending_mutex);
    if (l.broken) {
      const Error error = *l.broken_error;
      broken_lock.unlock();
      forget_channel();
      throw error;
    }
  }
  hello.mac = wire::client_mac(*l.key, l.server_nonce, hello, channel);
  if (!send_in_channel(l, channel, hello, flush)) {
    forget_channel();
    throw Error(Status::connection_lost, "lost the connection to the rendezvous at " + endpoint + " while joining " +
                                             identity.name());
  }
}

void Client::Impl::await_welcome() {
  Impl& l = *host;
  std::unique_lock lock(welcome_mutex);
  if (!welcome_cv.wait_for(lock, options.connect_timeout, [&] { return channel_welcome.has_value(); })) {
    lock.unlock();
    forget_channel();
    send_in_channel(l, channel, wire::Closed{Status::timeout, "no Welcome in time"});
    throw Error(Status::timeout, "the rendezvous at " + endpoint + " did not answer the join of " +
                                     identity.name() + " within " +
                                     std::to_string(options.connect_timeout.count()) + " ms");
  }
  const wire::Welcome w = std::move(*channel_welcome);
  lock.unlock();
  if (w.status != Status::ok) {
    forget_channel();
    throw Error(w.status, "the rendezvous at " + endpoint + " refused " + identity.name() + ": " + w.message);
  }
  const Digest expected = wire::server_mac(*l.key, l.server_nonce, hello_nonce);
  if (!constant_time_equal(expected, w.server_mac)) {
    forget_channel();
    send_in_channel(l, channel, wire::Closed{Status::auth_failed, "server proof did not match"});
    throw Error(Status::auth_failed, "the server at " + endpoint +
                                         " does not know this program's secret: it is not this program's rendezvous");
  }
  member = true;
  generation = w.generation;
}

void Client::Impl::forget_channel() {
  std::lock_guard lock(host->channels_mutex);
  host->channels.erase(channel);
}

void Client::Impl::release_on_link_thread(std::shared_ptr<Impl>& session) {
  if (session && session.use_count() == 1 && session->host && session->host.use_count() == 1) {
    new std::shared_ptr<Impl>(std::move(session));  // leaked, with its link
  }
  session.reset();
}

void Client::Impl::close_channel() {
  bool was_open = false;
  {
    std::lock_guard lock(host->channels_mutex);
    was_open = host->channels.erase(channel) > 0;
  }
  bool link_broken = false;
  {
    std::lock_guard lock(host->pending_mutex);
    link_broken = host->broken;
  }
  if (was_open && !link_broken) {
    send_in_channel(*host, channel, wire::Closed{Status::connection_lost, "closed by its client"});
  }
  fail_everything(Error(Status::connection_lost, "the rendezvous client was closed"), false);
}

AgentConnection::AgentConnection(std::shared_ptr<Client::Impl> link) : link_(std::move(link)) {}

AgentConnection::~AgentConnection() = default;

std::shared_ptr<AgentConnection> AgentConnection::connect(const std::string& endpoint,
                                                          const std::string& token,
                                                          ClientOptions options) {
  auto link = std::make_shared<Client::Impl>(endpoint, std::move(options));
  link->self = link;
  link->open(token, false);
  return std::shared_ptr<AgentConnection>(new AgentConnection(std::move(link)));
}

namespace {

// A member's channel Impl on `link`, not opened yet: the link's limits and
// heartbeat, this host and process in its identity.
std::shared_ptr<Client::Impl> member_on(const std::shared_ptr<Client::Impl>& link, Identity identity,
                                        ClientOptions options) {
  fill_in_host_and_pid(identity);
  options.limits = link->options.limits;
  auto impl = std::make_shared<Client::Impl>(link->endpoint, std::move(options));
  impl->host = link;
  impl->identity = std::move(identity);
  impl->heartbeat = link->heartbeat;
  impl->self = impl;
  return impl;
}

}  // namespace

std::unique_ptr<Client> AgentConnection::join(Identity identity, ClientOptions options) {
  auto impl = member_on(link_, std::move(identity), std::move(options));
  impl->open_channel();
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

std::vector<AgentConnection::Joined> AgentConnection::join_all(std::vector<Joining> members) {
  std::vector<Joined> out(members.size());
  std::vector<std::shared_ptr<Client::Impl>> sent(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    auto impl = member_on(link_, std::move(members[i].identity), std::move(members[i].options));
    try {
      impl->send_hello(false);
      sent[i] = std::move(impl);
    } catch (const Error& e) {
      out[i].error = e;
    }
  }
  link_->flush();  // every Hello in one write; a failed one fails the channels, whose waits end
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (!sent[i]) continue;
    try {
      sent[i]->await_welcome();
      out[i].client = std::unique_ptr<Client>(new Client(std::move(sent[i])));
    } catch (const Error& e) {
      out[i].error = e;
    }
  }
  return out;
}

bool AgentConnection::connected() const {
  std::lock_guard lock(link_->pending_mutex);
  return !link_->broken;
}

std::size_t AgentConnection::members() const {
  std::lock_guard lock(link_->channels_mutex);
  return link_->channels.size();
}

}  // namespace slipway::rendezvous
