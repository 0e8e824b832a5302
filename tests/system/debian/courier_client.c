/* A C program built against the installed libslipway-dev
 * (tests/system/debian/installed.sh): one endpoint serves "greet" and
 * calls it over its own address; prints the reply. */
#include <slipway/channels/courier.h>
#include <stdio.h>
#include <string.h>

static void greet(void* user, const void* request, size_t size, slipway_responder* responder) {
  char reply[64];
  (void)user;
  snprintf(reply, sizeof reply, "hello %.*s", (int)size, (const char*)request);
  slipway_responder_reply(responder, reply, strlen(reply));
}

int main(void) {
  slipway_endpoint_options options;
  slipway_error error;
  slipway_buffer reply;
  const void* address;
  size_t address_size;
  int status;
  slipway_endpoint_options_init(&options);
  options.name = "client";
  options.directory = SLIPWAY_DIRECTORY_NONE;
  slipway_endpoint* endpoint = slipway_endpoint_create(&options, &error);
  if (!endpoint) {
    fprintf(stderr, "endpoint: %s\n", error.message);
    return 1;
  }
  if (slipway_endpoint_register(endpoint, "greet", greet, NULL, &error) != SLIPWAY_OK) {
    fprintf(stderr, "register: %s\n", error.message);
    return 1;
  }
  slipway_endpoint_address(endpoint, &address, &address_size);
  slipway_handle* self = slipway_endpoint_connect(endpoint, address, address_size, "self", &error);
  if (!self) {
    fprintf(stderr, "connect: %s\n", error.message);
    return 1;
  }
  status = slipway_call(self, "greet", "over courier", strlen("over courier"), 10000, &reply, &error);
  if (status != SLIPWAY_OK) {
    fprintf(stderr, "call: %s\n", error.message);
    return 1;
  }
  printf("reply: %.*s\n", (int)reply.size, (const char*)reply.data);
  slipway_buffer_free(&reply);
  slipway_handle_destroy(self);
  slipway_endpoint_destroy(endpoint);
  return 0;
}
