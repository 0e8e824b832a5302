// One connection to the rendezvous for all the members of one agent
// (slipway-exec's replicas, the launcher's tasks that need a client): each
// member is a channel on it (docs/rendezvous.md, "Many members on one
// connection"), so an agent of 128 tasks holds one socket and two threads
// instead of 128 and 256.
//
// Contract: thread-safe. connect() authenticates as an observer (Error as
// Client::connect_observer throws). join() admits one member exactly as
// Client::connect would (its own identity, attempt and secret proof; Error:
// duplicate_member, stale_attempt, auth_failed, limit_exceeded past
// Limits::max_channels_per_connection on the server, connection_lost,
// timeout) and returns a Client with Client's API and contract for it. The
// connection's heartbeats and silence detection cover every member; when
// the connection is lost, every member's pending calls fail and each
// member's on_disconnect runs. A member's leave(), close() or destruction
// touches no other member. The connection stays open while this object or
// any member Client lives.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slipway/rendezvous/client.hpp"

namespace slipway::rendezvous {

class AgentConnection {
 public:
  static std::shared_ptr<AgentConnection> connect(const std::string& endpoint, const std::string& token,
                                                  ClientOptions options = {});
  ~AgentConnection();
  AgentConnection(const AgentConnection&) = delete;
  AgentConnection& operator=(const AgentConnection&) = delete;

  // Joins `identity` (host and pid: this host and process when empty/0) on
  // a channel of its own. `options`: on_disconnect and the request timeouts
  // of this member; connect_timeout bounds the join; limits are the
  // connection's.
  std::unique_ptr<Client> join(Identity identity, ClientOptions options = {});
  // Joins every one of `members` as join() would, all at once: each Hello
  // is sent before the first Welcome is awaited, so that N members cost
  // one round trip rather than N (an agent starting 128 replicas). Per
  // member, in order: its Client, or the Error join() would have thrown.
  struct Joining {
    Identity identity;
    ClientOptions options;
  };
  struct Joined {
    std::unique_ptr<Client> client;  // null when `error` says why not
    std::optional<Error> error;
  };
  std::vector<Joined> join_all(std::vector<Joining> members);
  bool connected() const;
  std::size_t members() const;  // channels open now

 private:
  explicit AgentConnection(std::shared_ptr<Client::Impl> link);
  std::shared_ptr<Client::Impl> link_;
};

}  // namespace slipway::rendezvous
