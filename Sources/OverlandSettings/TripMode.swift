/// The means of transport of a trip; the setting holds the last one used.
public enum TripMode: String, SettingChoice {
    case walk, run, bicycle, car, taxi, bus, tram, train, metro, gondola, monorail, sleigh, plane, boat, scooter
}
