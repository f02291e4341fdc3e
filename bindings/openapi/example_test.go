package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
)

// An HTTP API described by a few lines of OpenAPI becomes tools a script
// calls like any other.
func ExampleTools() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"city": "Lyon", "celsius": 21}`)
	}))
	defer api.Close()

	spec, err := openapi.Parse([]byte(`
openapi: 3.0.3
info: {title: Weather, version: "1"}
paths:
  /weather/{city}:
    get:
      operationId: weather/get
      summary: The weather in a city
      parameters:
        - {name: city, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: Now.
          content:
            application/json:
              schema:
                type: object
                properties: {city: {type: string}, celsius: {type: number}}
`))
	if err != nil {
		panic(err)
	}
	tools, err := openapi.Tools("weather", spec, openapi.Options{BaseURL: api.URL})
	if err != nil {
		panic(err)
	}
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		panic(err)
	}
	res, err := eng.Execute(context.Background(), engine.ExecuteRequest{
		Code: `const w = await tools.weather.weather_get({city: "Lyon"}); return w.celsius > 20 ? "warm" : "cool";`,
	})
	if err != nil {
		panic(err)
	}
	var verdict string
	json.Unmarshal(res.Result, &verdict)
	fmt.Println(tools[0].Name, tools[0].Annotations.ReadOnlyHint, verdict)
	// Output: weather.weather_get true warm
}
