package actions_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hieropt/hieropt/actions"
)

func TestOrders(t *testing.T) {
	assert.Equal(t, []string{"bound", "kind", "resident", "resident-half", "resident-levels", "workload"}, actions.OrderNames())
	for _, o := range actions.Orders() {
		got, ok := actions.LookupOrder(o.Name())
		assert.True(t, ok)
		assert.Equal(t, o, got)
		assert.NotEmpty(t, o.Doc())
	}
	o, ok := actions.LookupOrder("kind")
	assert.True(t, ok)
	assert.Equal(t, actions.KindOrder, o)
	_, ok = actions.LookupOrder("Kind")
	assert.False(t, ok)
}
