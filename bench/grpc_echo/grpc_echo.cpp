// slipway-grpc-echo: the gRPC C++ peer of `slipway-bench rpc`.
//   slipway-grpc-echo serve             listens on 127.0.0.1 (ephemeral port),
//                                       prints "port N", serves until stdin closes
//   slipway-grpc-echo ping TARGET SIZE ITERS
//                                       unary echo round trips, prints
//                                       "p50_us=X p99_us=Y"
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "echo.grpc.pb.h"

namespace {

class EchoService final : public slipway::bench::Echo::Service {
  grpc::Status Echo(grpc::ServerContext*, const slipway::bench::Payload* request,
                    slipway::bench::Payload* reply) override {
    reply->set_data(request->data());
    return grpc::Status::OK;
  }
};

int serve() {
  EchoService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.SetMaxSendMessageSize(64 << 20);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "slipway-grpc-echo: cannot listen on 127.0.0.1\n");
    return 1;
  }
  std::printf("port %d\n", port);
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  server->Shutdown();
  return 0;
}

int ping(const std::string& target, std::size_t size, int iters) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  auto stub = slipway::bench::Echo::NewStub(channel);
  slipway::bench::Payload request;
  request.set_data(std::string(size, 'x'));
  std::vector<double> samples;
  samples.reserve(iters);
  int warmup = std::max(10, iters / 10);
  for (int i = 0; i < warmup + iters; ++i) {
    grpc::ClientContext context;
    slipway::bench::Payload reply;
    auto start = std::chrono::steady_clock::now();
    auto status = stub->Echo(&context, request, &reply);
    auto end = std::chrono::steady_clock::now();
    if (!status.ok() || reply.data().size() != size) {
      std::fprintf(stderr, "slipway-grpc-echo: echo failed: %s\n", status.error_message().c_str());
      return 1;
    }
    if (i >= warmup) samples.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) { return samples[std::min(samples.size() - 1, std::size_t(q * samples.size()))]; };
  std::printf("p50_us=%.3f p99_us=%.3f\n", at(0.50), at(0.99));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "serve" && argc == 2) return serve();
  if (mode == "ping" && argc == 5) {
    return ping(argv[2], std::strtoull(argv[3], nullptr, 10), std::atoi(argv[4]));
  }
  std::fprintf(stderr, "usage: slipway-grpc-echo serve | ping TARGET SIZE ITERS\n");
  return 2;
}
