package apiauthfn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzHandle: whatever the headers and the method ARN, the authorizer
// never panics, and allows only with an owner in its context.
func FuzzHandle(f *testing.F) {
	f.Add(aliceKey, "", methodARN)
	f.Add("", "Bearer good", methodARN)
	f.Add("", "bearer  good ", "arn:aws:execute-api:x:1:api/")
	f.Add(" ", "Basic", "arn:aws:s3:::bucket")
	f.Fuzz(func(t *testing.T, key, authz, arn string) {
		req := fixture(t, map[string]string{"x-api-key": key, "Authorization": authz})
		req.MethodArn = arn
		resp, err := newHandler(t, fakeVerifier{}).Handle(context.Background(), req)
		if err != nil || resp.PolicyDocument.Statement[0].Effect != "Allow" {
			return
		}
		assert.NotEmpty(t, resp.Context["owner"])
	})
}
