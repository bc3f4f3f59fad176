// Command manage is the Lambda behind the management API: GET /v1/links
// and GET, PATCH and DELETE /v1/links/{code}.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/wire/edgefns"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
)

func main() {
	h, err := wirecore.Lambda(context.Background(), func(cfg config.Config, c wirecore.Clients) (*managefn.Handler, error) {
		return edgefns.NewManage(cfg, edgefns.Lambda(c))
	})
	if err != nil {
		log.Fatalf("manage: %v", err)
	}
	lambda.StartHandlerFunc(h.Handle)
}
