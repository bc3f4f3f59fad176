package tables_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra/tables"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) {
	code := m.Run()
	jsii.Close()
	os.Exit(code)
}

// auditStream is the audit table's StreamSpecification with p.
func auditStream(t *testing.T, p tables.Props) any {
	t.Helper()
	app := awscdk.NewApp(nil)
	st := awscdk.NewStack(app, jsii.String("T"), &awscdk.StackProps{Env: &awscdk.Environment{Region: jsii.String("us-east-1")}})
	tables.New(st, "Tables", p)
	raw, err := json.Marshal(assertions.Template_FromStack(st, nil).ToJSON())
	require.NoError(t, err)
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(raw, &tpl))
	for id, r := range tpl.Resources {
		if r.Type == "AWS::DynamoDB::GlobalTable" && strings.HasPrefix(id, "TablesAudit") {
			return r.Properties["StreamSpecification"]
		}
	}
	t.Fatal("no audit table")
	return nil
}

// TestAuditStream: the audit archive reads the audit table's stream. A
// table without replicas gets NEW_IMAGE with the option and no stream
// without; one with replicas has CDK's NEW_AND_OLD_IMAGES either way
// (DynamoDB cannot change a stream's view type in place), which carries
// the new image too.
func TestAuditStream(t *testing.T) {
	assert.Nil(t, auditStream(t, tables.Props{}))
	assert.Equal(t, map[string]any{"StreamViewType": string(tableschema.NewImage)}, auditStream(t, tables.Props{AuditStream: true}))
	replicas := []string{"us-west-2"}
	want := map[string]any{"StreamViewType": string(tableschema.NewAndOldImages)}
	assert.Equal(t, want, auditStream(t, tables.Props{ReplicaRegions: replicas}))
	assert.Equal(t, want, auditStream(t, tables.Props{ReplicaRegions: replicas, AuditStream: true}))
}
