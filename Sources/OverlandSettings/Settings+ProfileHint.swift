import OverlandProtocol

extension Settings {
    /// The hint `overland config set endpoint` shows when the url's path names one receiver
    /// unambiguously (`ReceiverProfile.suggested(forURL:)`) and no profile is set: shown,
    /// never applied, and never naming the url (a token may ride in its query). Nil when
    /// there is nothing to suggest.
    public var profileHint: String? {
        guard let endpoint, receiverProfile == .none,
              let (profile, reason) = ReceiverProfile.suggested(forURL: endpoint) else { return nil }
        var commands: [String] = []
        if !profile.fits(wireProtocol), let fitting = WireProtocol.allCases.first(where: profile.fits) {
            commands.append("overland config set protocol \(fitting)")
        }
        commands.append("overland config set profile \(profile.name)")
        return "hint: \(reason); to use it: " + commands.joined(separator: "; ")
    }
}
