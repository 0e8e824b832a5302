# CMakeLists.txt of tests/system/debian's clients (installed.sh copies it
# beside courier_client.c and replay_header_check.cpp): built with the
# installed libslipway-dev only.
cmake_minimum_required(VERSION 3.18)
project(courier_client C CXX)
find_package(slipway REQUIRED)
add_executable(courier_client courier_client.c)
target_link_libraries(courier_client PRIVATE slipway::courier)
add_executable(replay_header_check replay_header_check.cpp)
target_compile_features(replay_header_check PRIVATE cxx_std_17)
target_link_libraries(replay_header_check PRIVATE slipway::courier)
