// LUBM Query 11: research groups that are sub-organisations of University0 (subOrganizationOf is transitive;
// the graph holds its closure, so one hop).
MATCH (x:ResearchGroup)-[:subOrganizationOf]->(:Resource {uri: 'http://www.University0.edu'})
RETURN x AS X
