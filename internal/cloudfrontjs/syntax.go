package cloudfrontjs

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// checkSyntax refuses the syntax the engine parses but cloudfront-js-2.0
// does not list among its features
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html):
// the page lists every supported feature (ES 5.1; const, let, async,
// await; template literals; arrow functions and rest parameters; **), so
// what it leaves out is refused here rather than found out at deploy
// time. It returns the first such construct with its line.
func checkSyntax(prg *ast.Program) error {
	c := syntaxChecker{declared: map[*ast.FunctionLiteral]bool{}, file: prg.File}
	c.walk(reflect.ValueOf(prg))
	return c.err
}

type syntaxChecker struct {
	// declared are the function declarations' literals: an async one is
	// allowed, an async closure is not ("async arguments and closures are
	// not supported").
	declared map[*ast.FunctionLiteral]bool
	file     *file.File
	err      error
}

var nodeType = reflect.TypeFor[ast.Node]()

// walk visits every node below v, depth first, through the AST's exported
// fields: goja's ast package has no visitor, and a reflective walk cannot
// miss a node type added in a later version of it.
func (c *syntaxChecker) walk(v reflect.Value) {
	if c.err != nil || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		c.walk(v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Type().Implements(nodeType) {
			if n, ok := v.Interface().(ast.Node); ok {
				if c.check(n); c.err != nil {
					return
				}
			}
		}
		c.walk(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[file.File]() {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				c.walk(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			c.walk(v.Index(i))
		}
	}
}

func (c *syntaxChecker) refuse(n ast.Node, what string) {
	line := 0
	if c.file != nil {
		line = c.file.Position(int(n.Idx0()) - c.file.Base()).Line
	}
	c.err = fmt.Errorf("%w: %s (line %d) is not a cloudfront-js-2.0 feature", ErrUnsupported, what, line)
}

func (c *syntaxChecker) check(n ast.Node) {
	switch n := n.(type) {
	case *ast.FunctionDeclaration:
		c.declared[n.Function] = true
	case *ast.FunctionLiteral:
		switch {
		case n.Generator:
			c.refuse(n, "a generator function")
		case n.Async && !c.declared[n]:
			c.refuse(n, "an async function expression")
		default:
			c.checkParams(n.ParameterList)
		}
	case *ast.ArrowFunctionLiteral:
		if n.Async {
			c.refuse(n, "an async arrow function")
			return
		}
		c.checkParams(n.ParameterList)
	case *ast.ClassLiteral:
		c.refuse(n, "a class")
	case *ast.YieldExpression:
		c.refuse(n, "yield")
	case *ast.ObjectPattern, *ast.ArrayPattern:
		c.refuse(n, "destructuring")
	case *ast.SpreadElement:
		c.refuse(n, "spread syntax")
	case *ast.ForOfStatement:
		c.refuse(n, "for-of")
	case *ast.OptionalChain, *ast.Optional:
		c.refuse(n, "optional chaining")
	case *ast.BinaryExpression:
		if n.Operator == token.COALESCE {
			c.refuse(n, "the ?? operator")
		}
	case *ast.AssignExpression:
		switch n.Operator {
		case token.COALESCE, token.LOGICAL_AND, token.LOGICAL_OR: // the parser's spelling of ??=, &&=, ||=
			c.refuse(n, "a logical assignment")
		}
	case *ast.TemplateLiteral:
		if n.Tag != nil {
			c.refuse(n, "a tagged template")
		}
	case *ast.MetaProperty:
		c.refuse(n.Meta, "new.target") // the parser leaves MetaProperty.Idx unset
	case *ast.PropertyShort:
		c.refuse(n, "a shorthand property")
	case *ast.PropertyKeyed:
		switch {
		case n.Computed:
			c.refuse(n, "a computed property name")
		case n.Kind == ast.PropertyKindMethod:
			c.refuse(n, "a method definition")
		}
	case *ast.NumberLiteral:
		if _, ok := n.Value.(*big.Int); ok {
			c.refuse(n, "a BigInt literal")
		} else if strings.Contains(n.Literal, "_") {
			c.refuse(n, "a numeric separator")
		}
	}
}

// checkParams refuses default parameter values; rest parameters are on
// the list.
func (c *syntaxChecker) checkParams(p *ast.ParameterList) {
	if p == nil {
		return
	}
	for _, b := range p.List {
		if b.Initializer != nil {
			c.refuse(b, "a default parameter value")
			return
		}
	}
}
