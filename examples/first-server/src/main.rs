use mcp_errors_core::ToolError;
use mcp_errors_core::rmcp::{ErrorBoundary, Json, error_catalog_meta};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServiceExt, tool, tool_router};

#[derive(Debug, thiserror::Error, ToolError)]
enum WeatherError {
    #[error("there is no weather station in {city}")]
    #[category(not_found)]
    #[hint("try a capital city, e.g. Paris")]
    UnknownCity {
        #[detail]
        city: String,
    },
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ForecastArgs {
    /// The city, e.g. `Paris`.
    city: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: i32,
}

struct Weather;

#[tool_router(server_handler)]
impl Weather {
    /// Today's forecast for a city.
    #[tool(meta = error_catalog_meta::<WeatherError>())]
    async fn forecast(
        &self,
        Parameters(args): Parameters<ForecastArgs>,
    ) -> Result<Json<Forecast>, WeatherError> {
        match args.city.as_str() {
            "Paris" => Ok(Json(Forecast {
                city: args.city,
                celsius: 18,
            })),
            _ => Err(WeatherError::UnknownCity { city: args.city }),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // ErrorBoundary: failures know their tool, the request's trace id and the client, and
    // arguments that do not deserialize come back as INVALID_ARGUMENTS.
    let server = ErrorBoundary::new(Weather)
        .serve(rmcp::transport::stdio())
        .await?;
    server.waiting().await?;
    Ok(())
}
