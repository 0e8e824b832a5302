// slipway: the command-line entry point. Parses the subcommand and hands
// over to the file that implements it (see commands.hpp).
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "python_package.hpp"

int main(int argc, char** argv) {
  using namespace slipway::cli;
  CLI::App app{
      "slipway - launch a distributed program (a TOML topology of services)\n"
      "on this machine or on a Slurm cluster.\n",
      "slipway"};
  app.set_version_flag("-V,--version", "slipway " SLIPWAY_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'slipway COMMAND --help' for the options of one command.\n"
             "Exit status: 0 success, 1 failure at run time, 2 invalid topology or usage.\n"
             "Topology reference: docs/topology.md; past runs and logs: docs/runs.md");

  // Every task slipway starts can `import slipway` (python_package.hpp).
  export_python_package();
  CommandContext ctx;
  register_validate(app, ctx);
  register_graph(app, ctx);
  register_plan(app, ctx);
  register_run(app, ctx);
  register_status(app, ctx);
  register_top(app, ctx);
  register_doctor(app, ctx);
  register_stop(app, ctx);
  register_checkpoint(app, ctx);
  register_scale(app, ctx);
  register_keeper(app, ctx);
  register_runs(app, ctx);
  register_logs(app, ctx);
  register_events(app, ctx);
  register_launch(app, ctx);
  register_sbatch(app, ctx);
  register_rendezvous(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "slipway: error: %s\n", e.what());
    return 1;
  }
  return ctx.exit_code;
}
