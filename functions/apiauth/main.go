// Command apiauth is the /v1 API's Lambda authorizer: an API key or a
// signed-in user's token names the caller's owner and role.
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	settings := apiauthfn.SettingsFrom(os.Getenv)
	build := func(cfg config.Config, c fnclients.Clients) (*apiauthfn.Handler, error) {
		return apiauthfn.Build(cfg, c, settings, apiauthfn.Tokens)
	}
	lambda.StartHandlerFunc(fnclients.Lambda("apiauth", build).Handle)
}
