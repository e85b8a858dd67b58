package algebra

import "github.com/cayleygraph/quad"

// Expr is a SPARQL expression: Var, Const, *Call, *Exists or *Aggregate.
type Expr interface {
	String() string
	isExpr()
}

// Const is a constant RDF term in an expression.
type Const struct {
	Value quad.Value
}

// String returns the N-Triples form of the constant.
func (c Const) String() string { return FormatTerm(c.Value) }

func (Const) isExpr() {}

// Canonical names of operators and built-in functions in [Call].Op. Keyword synonyms are normalised:
// URI → OpIRI, isURI → OpIsIRI. Operators keep their SPARQL spelling; unary plus and minus have their own
// names; IN and NOT IN take the tested expression as the first argument.
const (
	OpOr     = "||"
	OpAnd    = "&&"
	OpNot    = "!"
	OpEq     = "="
	OpNe     = "!="
	OpLt     = "<"
	OpGt     = ">"
	OpLe     = "<="
	OpGe     = ">="
	OpAdd    = "+"
	OpSub    = "-"
	OpMul    = "*"
	OpDiv    = "/"
	OpUPlus  = "uplus"
	OpUMinus = "uminus"
	OpIn     = "in"
	OpNotIn  = "notin"

	OpStr          = "str"
	OpLang         = "lang"
	OpLangMatches  = "langmatches"
	OpDatatype     = "datatype"
	OpBound        = "bound"
	OpIRI          = "iri"
	OpBNode        = "bnode"
	OpRand         = "rand"
	OpAbs          = "abs"
	OpCeil         = "ceil"
	OpFloor        = "floor"
	OpRound        = "round"
	OpConcat       = "concat"
	OpStrLen       = "strlen"
	OpUCase        = "ucase"
	OpLCase        = "lcase"
	OpEncodeForURI = "encode_for_uri"
	OpContains     = "contains"
	OpStrStarts    = "strstarts"
	OpStrEnds      = "strends"
	OpStrBefore    = "strbefore"
	OpStrAfter     = "strafter"
	OpYear         = "year"
	OpMonth        = "month"
	OpDay          = "day"
	OpHours        = "hours"
	OpMinutes      = "minutes"
	OpSeconds      = "seconds"
	OpTimezone     = "timezone"
	OpTZ           = "tz"
	OpNow          = "now"
	OpUUID         = "uuid"
	OpStrUUID      = "struuid"
	OpMD5          = "md5"
	OpSHA1         = "sha1"
	OpSHA256       = "sha256"
	OpSHA384       = "sha384"
	OpSHA512       = "sha512"
	OpCoalesce     = "coalesce"
	OpIf           = "if"
	OpStrLang      = "strlang"
	OpStrDT        = "strdt"
	OpSameTerm     = "sameterm"
	OpIsIRI        = "isiri"
	OpIsBlank      = "isblank"
	OpIsLiteral    = "isliteral"
	OpIsNumeric    = "isnumeric"
	OpRegex        = "regex"
	OpSubstr       = "substr"
	OpReplace      = "replace"
)

// BuiltinArity gives, for each built-in function name, the minimum and maximum number of arguments
// (max -1: variadic). Operators are not listed.
var BuiltinArity = map[string][2]int{
	OpStr: {1, 1}, OpLang: {1, 1}, OpLangMatches: {2, 2}, OpDatatype: {1, 1}, OpBound: {1, 1},
	OpIRI: {1, 1}, OpBNode: {0, 1}, OpRand: {0, 0}, OpAbs: {1, 1}, OpCeil: {1, 1}, OpFloor: {1, 1},
	OpRound: {1, 1}, OpConcat: {0, -1}, OpStrLen: {1, 1}, OpUCase: {1, 1}, OpLCase: {1, 1},
	OpEncodeForURI: {1, 1}, OpContains: {2, 2}, OpStrStarts: {2, 2}, OpStrEnds: {2, 2},
	OpStrBefore: {2, 2}, OpStrAfter: {2, 2}, OpYear: {1, 1}, OpMonth: {1, 1}, OpDay: {1, 1},
	OpHours: {1, 1}, OpMinutes: {1, 1}, OpSeconds: {1, 1}, OpTimezone: {1, 1}, OpTZ: {1, 1},
	OpNow: {0, 0}, OpUUID: {0, 0}, OpStrUUID: {0, 0}, OpMD5: {1, 1}, OpSHA1: {1, 1}, OpSHA256: {1, 1},
	OpSHA384: {1, 1}, OpSHA512: {1, 1}, OpCoalesce: {0, -1}, OpIf: {3, 3}, OpStrLang: {2, 2},
	OpStrDT: {2, 2}, OpSameTerm: {2, 2}, OpIsIRI: {1, 1}, OpIsBlank: {1, 1}, OpIsLiteral: {1, 1},
	OpIsNumeric: {1, 1}, OpRegex: {2, 3}, OpSubstr: {2, 3}, OpReplace: {3, 4},
}

// operatorArity lists the operators with their argument counts.
var operatorArity = map[string][2]int{
	OpOr: {2, 2}, OpAnd: {2, 2}, OpNot: {1, 1}, OpEq: {2, 2}, OpNe: {2, 2}, OpLt: {2, 2}, OpGt: {2, 2},
	OpLe: {2, 2}, OpGe: {2, 2}, OpAdd: {2, 2}, OpSub: {2, 2}, OpMul: {2, 2}, OpDiv: {2, 2},
	OpUPlus: {1, 1}, OpUMinus: {1, 1}, OpIn: {1, -1}, OpNotIn: {1, -1},
}

// Call applies an operator or built-in (Op, a canonical name from the Op constants) or a function named
// by an IRI (Op empty, IRI set; casts such as xsd:integer(?x) are IRI calls).
type Call struct {
	Op   string
	IRI  quad.IRI
	Args []Expr
}

// String returns "(op arg...)" or "(<iri> arg...)".
func (c *Call) String() string { return exprString(c) }

func (*Call) isExpr() {}

// Exists is EXISTS { pattern } or, with Not, NOT EXISTS { pattern }.
type Exists struct {
	Pattern Node
	Not     bool
}

// String returns "(exists pattern)" or "(notexists pattern)".
func (e *Exists) String() string { return exprString(e) }

func (*Exists) isExpr() {}

// Aggregate function names in [Aggregate].Op.
const (
	AggCount       = "count"
	AggSum         = "sum"
	AggMin         = "min"
	AggMax         = "max"
	AggAvg         = "avg"
	AggSample      = "sample"
	AggGroupConcat = "group_concat"
)

// Aggregate is a set function. Arg is nil for COUNT(*). Separator is used by GROUP_CONCAT only (the
// parser fills in the default " ").
type Aggregate struct {
	Op        string
	Distinct  bool
	Arg       Expr
	Separator string
}

// String returns "(count distinct ?x)", "(count)", "(group_concat "sep" ?x)" and so on.
func (a *Aggregate) String() string { return exprString(a) }

func (*Aggregate) isExpr() {}

// OrderCond is one ORDER BY key.
type OrderCond struct {
	Expr Expr
	Desc bool
}

// AggBinding binds the result of an aggregate to a (non-projectable) variable in a [Group].
type AggBinding struct {
	Var Var
	Agg *Aggregate
}
