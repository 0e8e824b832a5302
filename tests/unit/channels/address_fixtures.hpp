// Real UCX 1.13.1 worker addresses (ucp_worker_query on the development VM,
// hex), for the address checker's unit tests and the channels fuzz seeds.
#pragma once

#include <string>
#include <string_view>

#include "slipway/channels/bytes.hpp"

namespace slipway::channels::testing {

inline Bytes from_hex(std::string_view hex) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

struct AddressFixture {
  std::string_view what;
  std::string_view hex;
};

// v1, UCX_TLS=tcp UCX_NET_DEVICES=lo: one loopback tcp device.
inline constexpr std::string_view kTcpLoopbackV1 =
    "20132b857eb400fcf8209201023d86607aca8c5299f9ffffef00000000cf1917b75138539e3e4bd7e03737011323"
    "0082b4a1";

inline constexpr AddressFixture kAddressFixtures[] = {
    {"v1, tcp on lo", kTcpLoopbackV1},
    {"v1, posix and cma",
     "20b5f7b53de1a9337740083d86607aca8c5219a7d377cc2b32004c3e5077ccab33004f2300880b3200c0020000c0"
     "21883d86607aca8c5219478bbd37063600242e5077ccab3300922100840b320000"},
    {"v1, every transport (self, tcp on eth0 and lo, sysv, posix, cma)",
     "2019b97a39617b409d2000637577cc2b3200f8d74f00000000004f0300885f3a5d4719a31e7e21060002c0000202"
     "cf1917b751389763344bd7e037370013230082bfb5211201023d86607aca8c5299f9ffffef00000000cf1917b751"
     "38539e3e4bd7e037370113230082b80f42083d86607aca8c52198d5377cc2b32004c3e5077ccab33004f2300880e"
     "0000000000000043083d86607aca8c5219a7d377cc2b32004c3e5077ccab33004f2300880d320000040000c02488"
     "3d86607aca8c5219478bbd37063600242e5077ccab3300922100840d320000"},
    {"v2, every transport",
     "01028f7228562204088c0000637544a4000080001b0088b19efd889654100c01060002c0000202cf190c015a0080"
     "008b00829a01011201023d86607aca8c5299f9ffffef00000000cf190c015a0180008b00828da902083d86607aca"
     "8c52198d534475430081009b0088160000000000000003083d86607aca8c5219a7d34475430081009b0088113200"
     "00040000c004883d86607aca8c5219478bfb554300000099008411320000"},
    {"v1 with debug info (the worker's name), every transport",
     "3076c5f8e409d1962d08766d3a31323831392000637577cc2b3200f8d74f00000000004f030088a5e0188d390c3a"
     "0921060002c0000202cf1917b751389763344bd7e037370013230082aff9211201023d86607aca8c5299f9ffffef"
     "00000000cf1917b75138539e3e4bd7e037370113230082e5fd42083d86607aca8c52198d5377cc2b32004c3e5077"
     "ccab33004f2300881b0000000000000043083d86607aca8c5219a7d377cc2b32004c3e5077ccab33004f23008813"
     "320000040000c024883d86607aca8c5219478bbd37063600242e5077ccab33009221008413320000"},
};

}  // namespace slipway::channels::testing
