// compose-config loads compose files the way Docker Compose does, through the Compose
// specification's reference library (compose-go, the loader inside `docker compose`): it validates
// them against the specification's JSON schema, checks that every service, network, volume,
// secret and config a service names is declared, interpolates `${…}` from the environment and the
// project's .env, resolves relative paths, and prints the result, as `docker compose config` does.
// deploy/ci/compose-check.sh runs it; exit 1 with the loader's message when a file does not load.
//
//	compose-config [-format yaml|json] [-env-file FILE] compose.yaml [override.yaml…]
//
// Every profile is enabled, so services behind one are validated too.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	format := flag.String("format", "yaml", "yaml or json")
	envFile := flag.String("env-file", "", "the .env file (default: .env beside the first compose file, as Docker Compose reads it)")
	flag.Parse()
	if flag.NArg() == 0 || (*format != "yaml" && *format != "json") {
		fmt.Fprintln(os.Stderr, "usage: compose-config [-format yaml|json] [-env-file FILE] compose.yaml [override.yaml…]")
		os.Exit(2)
	}
	var envFiles []string
	if *envFile != "" {
		envFiles = []string{*envFile}
	}
	options, err := cli.NewProjectOptions(flag.Args(),
		cli.WithOsEnv,
		cli.WithEnvFiles(envFiles...),
		cli.WithDotEnv,
		cli.WithProfiles([]string{"*"}),
		cli.WithResolvedPaths(true),
		cli.WithInterpolation(true),
		cli.WithNormalization(true),
		cli.WithConsistency(true),
	)
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	var out []byte
	if *format == "json" {
		out, err = project.MarshalJSON()
	} else {
		out, err = project.MarshalYAML()
	}
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "compose-config: %v\n", err)
	os.Exit(1)
}
