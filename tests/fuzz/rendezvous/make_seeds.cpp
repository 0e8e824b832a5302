// Writes one seed frame body per message type into the directory given as
// argv[1]: the fuzzer's starting corpus (built and run by CMake).
#include <cstdio>
#include <string>
#include <vector>

#include "slipway/rendezvous/wire.hpp"

using namespace slipway::rendezvous;
using namespace slipway::rendezvous::wire;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  Event joined;
  joined.member.identity = Identity{"a", 1, 0, "h", 2};
  Event key;
  key.kind = EventKind::key_changed;
  key.key = "addr/a/1/p";
  key.value = "h:1";
  const std::vector<Message> seeds = {
      Challenge{},
      Hello{kProtocolVersion, Role::member, Identity{"node", 3, 1, "host", 77}, {}, {}},
      Welcome{Status::ok, "", {}, 1},
      Heartbeat{},
      Put{1, Scope::task, "k", "v"},
      Get{2, "k"},
      WaitFor{3, "k", 100},
      CompareAndSwap{4, Scope::program, "k", std::string("a"), "b"},
      Add{5, Scope::node, "n", -1},
      Erase{6, "k"},
      Fence{7, "f", MemberSet::of({{"a", 0, 2}}), true, "blob", 10},
      Subscribe{8, kAllEvents, "addr/"},
      Unsubscribe{9, kMemberEvents, ""},
      Leave{10, 1},
      RequestStop{11, "why"},
      ListMembers{12},
      Declare{13, "a", 4},
      Reply{14, Status::ok, "", ValueBody{std::string("v")}},
      Reply{15, Status::ok, "", FenceBody{{{"a", 0, "x"}}}},
      Reply{16, Status::ok, "", MembersBody{{joined.member}, false, ""}},
      joined,
      key,
  };
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    std::string frame;
    encode(seeds[i], frame);
    const std::string path = std::string(argv[1]) + "/seed-" + std::to_string(i);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 1;
    std::fwrite(frame.data() + 4, 1, frame.size() - 4, f);
    std::fclose(f);
  }
  return 0;
}
