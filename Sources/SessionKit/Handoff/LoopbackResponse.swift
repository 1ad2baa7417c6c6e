/// The few responses the loopback listener sends. None of them repeats anything from the request.
enum LoopbackResponse {
    /// The page the browser shows once the callback arrived.
    static func page(_ html: String) -> [UInt8] {
        response(200, body: html, headers: [("Content-Type", "text/html; charset=utf-8")])
    }

    /// A refusal with a one-line plain-text reason.
    static func refusal(_ status: Int) -> [UInt8] {
        var headers = [("Content-Type", "text/plain; charset=utf-8")]
        if status == 405 { headers.append(("Allow", "GET")) }
        return response(status, body: reason(status) + "\n", headers: headers)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 431: "Request Header Fields Too Large"
        default: "Error"
        }
    }

    private static func response(_ status: Int, body: String, headers: [(String, String)]) -> [UInt8] {
        let body = Array(body.utf8)
        var head = "HTTP/1.1 \(status) \(reason(status))\r\n"
        // The page must not be cached, framed, scripted or leak the callback URL onward.
        let common = [
            ("Content-Length", String(body.count)), ("Connection", "close"), ("Cache-Control", "no-store"),
            ("Referrer-Policy", "no-referrer"), ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        for (name, value) in headers + common { head += "\(name): \(value)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}
