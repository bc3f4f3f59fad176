package apigw

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/link"
)

// MaxBodyBytes caps a JSON request body. A create request is a URL of at
// most 8 KiB plus a few small fields.
const MaxBodyBytes = 64 << 10

// TooLargeError is a body over its cap: Limit bytes, MaxBodyBytes when
// zero.
type TooLargeError struct{ Size, Limit int }

func (e *TooLargeError) Error() string {
	limit := e.Limit
	if limit == 0 {
		limit = MaxBodyBytes
	}
	return fmt.Sprintf("the body is %d bytes; at most %d are accepted", e.Size, limit)
}

// ErrUnsupportedMediaType: a body that is declared as something other than JSON.
var ErrUnsupportedMediaType = errors.New("unsupported media type")

// Header reads a request header case-insensitively. API Gateway passes
// headers as the client sent them, so the spelling varies.
func Header(req *events.APIGatewayProxyRequest, name string) string {
	if v, ok := req.Headers[name]; ok {
		return v
	}
	for k, v := range req.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	for k, v := range req.MultiValueHeaders {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// Body returns the raw request body, base64-decoded when API Gateway says so.
func Body(req *events.APIGatewayProxyRequest) ([]byte, error) {
	if len(req.Body) > MaxBodyBytes*4/3+4 {
		return nil, &TooLargeError{Size: len(req.Body)}
	}
	body := []byte(req.Body)
	if req.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(req.Body); err != nil {
			return nil, &link.FieldError{Field: "body", Reason: "is not valid base64"}
		}
	}
	if len(body) > MaxBodyBytes {
		return nil, &TooLargeError{Size: len(body)}
	}
	return body, nil
}

// DecodeJSON decodes one JSON object into dst strictly: unknown fields,
// wrong types, trailing data and non-JSON content types are errors that
// name the field at fault.
func DecodeJSON(req *events.APIGatewayProxyRequest, dst any) error {
	if ct := Header(req, "Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return ErrUnsupportedMediaType
		}
	}
	body, err := Body(req)
	if err != nil {
		return err
	}
	return DecodeStrict(body, dst)
}

// DecodeStrict is DecodeJSON's body half, apart so it can be fuzzed.
func DecodeStrict(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return &link.FieldError{Field: "body", Reason: "is empty; send a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonFieldError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return &link.FieldError{Field: "body", Reason: "has data after the JSON object"}
	}
	return nil
}

func jsonFieldError(err error) error {
	var (
		typeErr   *json.UnmarshalTypeError
		syntaxErr *json.SyntaxError
	)
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return &link.FieldError{Field: "body", Reason: "must be a JSON object"}
		}
		return &link.FieldError{Field: field, Reason: fmt.Sprintf("must be a JSON %s", jsonKind(typeErr.Type.Kind().String()))}
	case errors.As(err, &syntaxErr):
		return &link.FieldError{Field: "body", Reason: fmt.Sprintf("is not valid JSON (at byte %d)", syntaxErr.Offset)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json reports unknown fields only as text; the field
		// name is the quoted rest of the message.
		quoted := strings.TrimPrefix(err.Error(), "json: unknown field ")
		name, uerr := strconv.Unquote(quoted)
		if uerr != nil {
			name = strings.Trim(quoted, `"`)
		}
		if name == "" {
			// A Field must name something; `{"": 1}` has no name to give.
			return &link.FieldError{Field: "body", Reason: "has a field with an empty name"}
		}
		return &link.FieldError{Field: name, Reason: "is not a known field"}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &link.FieldError{Field: "body", Reason: "is truncated JSON"}
	}
	return &link.FieldError{Field: "body", Reason: "is not valid JSON"}
}

func jsonKind(k string) string {
	switch k {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "number"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "bool":
		return "boolean"
	}
	return k
}
