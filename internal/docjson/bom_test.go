package docjson_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/internal/docjson"
)

// TestByteOrderMark: a UTF-8 byte order mark before the document (as some
// Windows editors save JSON) is skipped, and error positions count from
// after it, as the editor shows them.
func TestByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	o := parse(t, bom+`{"name": "x"}`)
	s, err := o.String("name", true)
	require.NoError(t, err)
	assert.Equal(t, "x", s)

	_, err = docjson.ParseDocument(doc, []byte(bom+`{"name": x}`))
	assertInputError(t, err, doc+`: invalid JSON at line 1, column 10: invalid character 'x' looking for beginning of value`)
	_, err = docjson.ParseDocument(doc, []byte(bom))
	assertInputError(t, err, doc+`: empty document: want a JSON object`)
	// Only at the start: elsewhere it is a character like any other.
	_, err = docjson.ParseDocument(doc, []byte(`{"name": "x"}`+bom))
	assertInputError(t, err, doc+`: invalid JSON at line 1, column 14: data after the top-level object`)
}
