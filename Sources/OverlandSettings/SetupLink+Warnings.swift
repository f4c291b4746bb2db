extension SetupLink {
    /// What `overland setup` warns of once the link is applied, each line without the
    /// tool's name: a `link` typed on the command line with nothing after url= (unquoted,
    /// `overland setup overland://setup?url=U&token=T` arrives as `...?url=U`: the shell ran
    /// the rest as a command of its own), and the token the link cleared (`clearedToken`).
    public func appliedWarnings(link: String?, clearedToken: Bool) -> [String] {
        var lines: [String] = []
        if let link, !link.contains("&"), token == nil {
            lines.append("the link holds nothing after url=: if it had more (token=, device_id=), "
                         + "the shell cut it at the first '&': quote the whole link, overland setup 'overland://setup?url=...&token=...'")
        }
        if clearedToken {
            let why = emptyToken ? "its token= is empty" : "it has no token="
            lines.append("\(why): the token is cleared (it must never reach the new server); "
                         + "set the new one with 'overland config set token --stdin' if the server needs one")
        }
        return lines
    }
}
